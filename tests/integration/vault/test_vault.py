"""The vault on a real database: encrypted at rest, per-org keys, permission-checked and logged reads, rotation."""

from __future__ import annotations

import pyotp
import pytest
import sqlalchemy as sa
from pydantic import SecretStr

from finrpa.db.engine import create_engine
from finrpa.exceptions import ConfigurationError, NotFoundError, PermissionDeniedError
from finrpa.identity.models import Role
from finrpa.identity.permissions import Principal
from finrpa.tenancy import system_context, use_tenant
from finrpa.vault.crypto import VaultDecryptionError
from finrpa.vault.models import CredentialRead, SecretKind, VaultSecret
from finrpa.vault.service import VaultService, rewrap_data_keys
from tests.integration.tenancy.support import Backend, OrgFixture, make_org, principal_of

pytestmark = pytest.mark.asyncio(loop_scope="session")

VALUE = "pw-for-tests-only-7c1e"
TOTP_SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"  # a test seed, 160 bits


async def vault_org(backend: Backend) -> OrgFixture:
    fixture = await make_org(backend, {"olga": (Role.OPERATOR,), "alex": (Role.APPROVER,), "dora": (Role.DEPT_ADMIN,)})
    await put(backend, fixture, "bank/login", VALUE)
    return fixture


async def put(backend: Backend, fixture: OrgFixture, name: str, value: str, **kwargs: object) -> None:
    dora = await principal_of(backend, fixture, "dora")
    async with backend.db.sessions() as session, session.begin():
        with use_tenant(dora.tenant_context()):
            await VaultService(session, backend.settings).put_secret(
                dora,
                fixture.org_id,
                name,
                value,
                dept_id=fixture.department.id,
                **kwargs,  # type: ignore[arg-type]
            )


async def resolve(backend: Backend, actor: Principal, ref: str, run_id: str | None = "run-1") -> str:
    async with backend.db.sessions() as session, session.begin():
        with use_tenant(actor.tenant_context()):
            value = await VaultService(session, backend.settings).resolve_secret(
                ref, purpose="log in to the bank portal", actor=actor, run_id=run_id
            )
    return value.reveal()


async def test_the_stored_row_does_not_contain_the_plaintext(backend: Backend) -> None:
    fixture = await vault_org(backend)
    engine = create_engine(backend.url)
    try:
        async with engine.connect() as connection:
            rows = (
                await connection.execute(
                    sa.text("SELECT * FROM vault_secrets WHERE org_id = :o"), {"o": fixture.org_id}
                )
            ).all()
            keys = (await connection.execute(sa.text("SELECT wrapped_key FROM vault_data_keys"))).all()
    finally:
        await engine.dispose()
    assert len(rows) == 1
    dumped = b"".join(bytes(v) if isinstance(v, bytes | memoryview) else str(v).encode() for v in rows[0])
    assert VALUE.encode() not in dumped
    assert all(len(bytes(key)) == 12 + 32 + 16 for (key,) in keys)


async def test_the_operator_reads_it_and_the_read_is_logged(backend: Backend) -> None:
    fixture = await vault_org(backend)
    olga = await principal_of(backend, fixture, "olga")
    assert await resolve(backend, olga, "secret://bank/login") == VALUE
    async with backend.db.sessions() as session:
        with system_context("test", org_id=fixture.org_id):
            reads = (await session.scalars(sa.select(CredentialRead))).all()
    assert [(r.secret_name, r.actor_user_id, r.purpose, r.run_id, r.rule) for r in reads] == [
        ("bank/login", olga.user_id, "log in to the bank portal", "run-1", "department_role")
    ]


async def test_an_approver_of_the_same_department_may_not_read_it(backend: Backend) -> None:
    fixture = await vault_org(backend)
    alex = await principal_of(backend, fixture, "alex")
    with pytest.raises(PermissionDeniedError, match="may not operate"):
        await resolve(backend, alex, "secret://bank/login")


async def test_another_organisation_sees_nothing_and_cannot_decrypt_a_copied_row(backend: Backend) -> None:
    mine, theirs = await vault_org(backend), await vault_org(backend)
    their_operator = await principal_of(backend, theirs, "olga")
    await put(backend, theirs, "bank/other", "another-value-for-tests")
    async with backend.db.sessions() as session:
        with use_tenant(their_operator.tenant_context()):
            names = [
                s.name
                for s in await VaultService(session, backend.settings).list_secrets(their_operator, theirs.org_id)
            ]
    assert names == ["bank/login", "bank/other"]  # their own only
    # Copy my ciphertext over theirs (as a database attacker could): it does not decrypt for them.
    async with backend.db.sessions() as session, session.begin():
        with system_context("test: tamper"):
            mine_row = await session.scalar(sa.select(VaultSecret).where(VaultSecret.org_id == mine.org_id))
            assert mine_row is not None
            await session.execute(
                sa.update(VaultSecret)
                .where(VaultSecret.org_id == theirs.org_id, VaultSecret.name == "bank/login")
                .values(ciphertext=mine_row.ciphertext)
            )
    with pytest.raises(VaultDecryptionError):
        await resolve(backend, their_operator, "secret://bank/login")


async def test_an_operator_of_another_department_does_not_see_the_secret(backend: Backend) -> None:
    fixture = await vault_org(backend)
    async with backend.db.sessions() as session, session.begin():
        with system_context("test", org_id=fixture.org_id):
            from finrpa.identity.service import DirectoryService, NewUser

            directory = DirectoryService(session, backend.settings)
            actor = Principal.platform(fixture.org_id, "test")
            user = await directory.create_user(actor, fixture.org_id, NewUser(username="rita"))
            await directory.grant_role(actor, user, fixture.other_department, Role.OPERATOR)
            fixture.users["rita"] = user
    rita = await principal_of(backend, fixture, "rita")
    with pytest.raises(NotFoundError):  # the department filter hides it before permissions are even asked
        await resolve(backend, rita, "secret://bank/login")
    async with backend.db.sessions() as session:
        with use_tenant(rita.tenant_context()):
            assert await VaultService(session, backend.settings).list_secrets(rita, fixture.org_id) == []


async def test_totp_codes_come_from_the_stored_seed(backend: Backend) -> None:
    fixture = await vault_org(backend)
    await put(backend, fixture, "bank/totp", "jbsw y3dp ehpk 3pxp jbsw y3dp ehpk 3pxp", kind=SecretKind.TOTP_SEED)
    olga = await principal_of(backend, fixture, "olga")
    async with backend.db.sessions() as session, session.begin():
        with use_tenant(olga.tenant_context()):
            code = await VaultService(session, backend.settings).totp_code(
                "secret://bank/totp", purpose="second factor", actor=olga
            )
    assert pyotp.TOTP(TOTP_SEED).verify(code.reveal(), valid_window=1)
    assert str(code) == "******"


async def test_listing_shows_names_and_metadata_never_values(backend: Backend) -> None:
    fixture = await vault_org(backend)
    olga = await principal_of(backend, fixture, "olga")
    async with backend.db.sessions() as session:
        with use_tenant(olga.tenant_context()):
            listed = await VaultService(session, backend.settings).list_secrets(olga, fixture.org_id)
    assert [(s.name, s.kind, s.version) for s in listed] == [("bank/login", SecretKind.PASSWORD, 1)]
    assert VALUE not in repr(listed)


async def test_the_read_log_is_append_only(backend: Backend) -> None:
    fixture = await vault_org(backend)
    await resolve(backend, await principal_of(backend, fixture, "olga"), "secret://bank/login")
    for statement in ("UPDATE credential_reads SET purpose = 'nothing'", "DELETE FROM credential_reads"):
        with pytest.raises(sa.exc.DBAPIError, match=r"append-only|permission denied"):
            async with backend.db.sessions() as session, session.begin():
                with system_context("test: tamper", org_id=fixture.org_id):
                    await session.execute(sa.text(statement))


async def test_master_key_rotation_rewraps_data_keys(backend: Backend) -> None:
    fixture = await vault_org(backend)
    olga = await principal_of(backend, fixture, "olga")
    old_key = backend.settings.key("master_key")
    new_settings = backend.settings.model_copy(update={"master_key": SecretStr("rotated-master-key-" + "r" * 40)})
    with pytest.raises(ConfigurationError, match="different master key"):
        async with backend.db.sessions() as session:
            with use_tenant(olga.tenant_context()):
                await VaultService(session, new_settings).resolve_secret("bank/login", purpose="p", actor=olga)
    async with backend.db.sessions() as session, session.begin():
        count = await rewrap_data_keys(session, old_master_key=old_key, new_master_key=new_settings.key("master_key"))
    assert count >= 1
    async with backend.db.sessions() as session, session.begin():
        with use_tenant(olga.tenant_context()):
            value = await VaultService(session, new_settings).resolve_secret("bank/login", purpose="p", actor=olga)
    assert value.reveal() == VALUE
    async with backend.db.sessions() as session, session.begin():  # rotate back for the other tests
        await rewrap_data_keys(session, old_master_key=new_settings.key("master_key"), new_master_key=old_key)
