"""Sign-in, refresh rotation with reuse detection, logout, lockout, rate limit and API keys, on a real database."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from pydantic import SecretStr

from finrpa.identity.api_keys import ApiKeyService
from finrpa.identity.auth import AuthService
from finrpa.identity.errors import AccountLockedError, AuthenticationError, LoginRateLimitedError, TokenReuseError
from finrpa.identity.models import AuthSession, Role, User
from finrpa.identity.permissions import Action, Principal, Resource, decide_permission
from finrpa.tenancy import system_context
from tests.integration.tenancy.support import PASSWORD, Backend, OrgFixture, make_org

pytestmark = pytest.mark.asyncio(loop_scope="session")


def auth_for(backend: Backend, **overrides: int) -> AuthService:
    return AuthService(backend.db.sessions, backend.settings.model_copy(update=overrides))


async def operator_org(backend: Backend) -> OrgFixture:
    return await make_org(backend, {"olga": (Role.OPERATOR,)})


async def test_sign_in_gives_tokens_that_authenticate_with_the_users_rights(backend: Backend) -> None:
    fixture = await operator_org(backend)
    auth = auth_for(backend)
    pair = await auth.login(fixture.org.slug, "olga", PASSWORD, source="127.0.0.1")
    who = await auth.authenticate(pair.access_token)
    assert who.principal.user_id == fixture.users["olga"].id
    assert who.session_id == pair.session_id
    assert pair.expires_in == 900
    ops = Resource(fixture.org_id, dept_id=fixture.department.id)
    assert decide_permission(who.principal, Action.OPERATE, ops).allowed
    assert not decide_permission(who.principal, Action.APPROVE, ops).allowed


async def test_wrong_password_unknown_user_and_unknown_org_give_the_same_answer(backend: Backend) -> None:
    fixture = await operator_org(backend)
    auth = auth_for(backend)
    messages = set()
    for org, username, password in (
        (fixture.org.slug, "olga", "not the password"),
        (fixture.org.slug, "nobody", PASSWORD),
        ("no-such-org", "olga", PASSWORD),
    ):
        with pytest.raises(AuthenticationError) as refused:
            await auth.login(org, username, password)
        messages.add(str(refused.value))
    assert messages == {"Wrong organisation, username or password."}


async def test_repeated_failures_lock_the_account_even_for_the_right_password(backend: Backend) -> None:
    fixture = await operator_org(backend)
    auth = auth_for(backend, login_max_failures=3)
    for _ in range(3):
        with pytest.raises(AuthenticationError):
            await auth.login(fixture.org.slug, "olga", "wrong guess")
    with pytest.raises(AccountLockedError, match="locked"):
        await auth.login(fixture.org.slug, "olga", PASSWORD)
    async with backend.db.sessions() as session:
        with system_context("test", org_id=fixture.org_id):
            user = await session.get(User, fixture.users["olga"].id)
    assert user is not None and user.locked_until is not None


async def test_too_many_attempts_in_the_window_are_rate_limited(backend: Backend) -> None:
    fixture = await operator_org(backend)
    auth = auth_for(backend, login_rate_limit_attempts=2, login_max_failures=100)
    await auth.login(fixture.org.slug, "olga", PASSWORD)  # successes do not count
    for _ in range(2):
        with pytest.raises(AuthenticationError):
            await auth.login(fixture.org.slug, "olga", "wrong guess")
    with pytest.raises(LoginRateLimitedError) as limited:
        await auth.login(fixture.org.slug, "olga", PASSWORD)
    assert limited.value.retryable and limited.value.http_status == 429


async def test_refresh_rotates_and_the_old_refresh_token_stops_working(backend: Backend) -> None:
    fixture = await operator_org(backend)
    auth = auth_for(backend)
    first = await auth.login(fixture.org.slug, "olga", PASSWORD)
    second = await auth.refresh(first.refresh_token)
    assert second.refresh_token != first.refresh_token and second.session_id == first.session_id
    assert (await auth.authenticate(second.access_token)).principal.username == "olga"


async def test_refresh_token_reuse_revokes_the_whole_family(backend: Backend) -> None:
    fixture = await operator_org(backend)
    auth = auth_for(backend)
    stolen = await auth.login(fixture.org.slug, "olga", PASSWORD)
    legitimate = await auth.refresh(stolen.refresh_token)
    with pytest.raises(TokenReuseError, match="already used"):
        await auth.refresh(stolen.refresh_token)  # the thief (or the victim) replays the old token
    with pytest.raises(AuthenticationError):
        await auth.refresh(legitimate.refresh_token)  # the newer token of the family is dead too
    with pytest.raises(AuthenticationError):
        await auth.authenticate(legitimate.access_token)  # and so are its access tokens
    async with backend.db.sessions() as session:
        with system_context("test", org_id=fixture.org_id):
            login = await session.get(AuthSession, stolen.session_id)
    assert login is not None and login.revoked_reason == "refresh_token_reuse"


async def test_logout_ends_access_and_refresh_at_once(backend: Backend) -> None:
    fixture = await operator_org(backend)
    auth = auth_for(backend)
    pair = await auth.login(fixture.org.slug, "olga", PASSWORD)
    await auth.logout(pair.session_id, fixture.org_id)
    with pytest.raises(AuthenticationError):
        await auth.authenticate(pair.access_token)
    with pytest.raises(AuthenticationError):
        await auth.refresh(pair.refresh_token)


async def test_disabled_user_cannot_use_a_live_token(backend: Backend) -> None:
    fixture = await operator_org(backend)
    auth = auth_for(backend)
    pair = await auth.login(fixture.org.slug, "olga", PASSWORD)
    async with backend.db.sessions() as session, session.begin():
        with system_context("test", org_id=fixture.org_id):
            await session.execute(sa.update(User).where(User.username == "olga").values(is_active=False))
    with pytest.raises(AuthenticationError, match="disabled"):
        await auth.authenticate(pair.access_token)


async def test_api_key_is_shown_once_stored_hashed_scoped_and_revocable(backend: Backend) -> None:
    fixture = await operator_org(backend)
    auth = auth_for(backend)
    async with backend.db.sessions() as session, session.begin():
        with system_context("test", org_id=fixture.org_id):
            keys = ApiKeyService(session, backend.settings)
            user = await session.get(User, fixture.users["olga"].id)
            assert user is not None
            issued = await keys.create(
                Principal.platform(fixture.org_id, "test"), user, name="ci", scopes=[Action.READ]
            )
    assert issued.key.startswith(issued.record.prefix) and issued.key not in issued.record.key_hash
    who = await auth.authenticate(issued.key)
    ops = Resource(fixture.org_id, dept_id=fixture.department.id)
    assert decide_permission(who.principal, Action.READ, ops).allowed
    assert decide_permission(who.principal, Action.OPERATE, ops).rule == "api_key_scope"  # olga may; the key not
    with pytest.raises(AuthenticationError):
        await auth.authenticate(issued.key[:-2] + "xx")
    async with backend.db.sessions() as session, session.begin():
        with system_context("test", org_id=fixture.org_id):
            await ApiKeyService(session, backend.settings).revoke(
                Principal.platform(fixture.org_id, "test"), issued.record.prefix
            )
    with pytest.raises(AuthenticationError, match="revoked"):
        await auth.authenticate(issued.key)


async def test_a_token_signed_with_another_installations_key_is_rejected(backend: Backend) -> None:
    fixture = await operator_org(backend)
    pair = await auth_for(backend).login(fixture.org.slug, "olga", PASSWORD)
    other_settings = backend.settings.model_copy(update={"secret_key": SecretStr("another-installation-" + "k" * 40)})
    with pytest.raises(AuthenticationError, match="not valid"):
        await AuthService(backend.db.sessions, other_settings).authenticate(pair.access_token)
