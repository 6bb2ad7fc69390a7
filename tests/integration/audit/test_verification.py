"""`verify` finds the first tampered row and says why: modified, deleted, inserted or truncated.

Every test tampers as the database owner would, with the append-only triggers switched off, because that
is the attacker the hash chain and the signed checkpoints are for.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from finrpa.audit.checkpoints import Checkpoint, DirectoryCheckpointStore, sign_checkpoint
from finrpa.audit.keys import SigningKey
from finrpa.audit.service import AuditService
from finrpa.tenancy import system_context
from tests.integration.audit.conftest import SharedDatabase
from tests.integration.audit.support import (
    append_rows,
    checkpoint,
    click,
    insert_raw,
    rehash,
    stored_rows,
    tamper,
    verify,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROWS = 6


@pytest_asyncio.fixture(loop_scope="module")
async def chain(shared_db: SharedDatabase, audit_service: AuditService, org_id: str) -> SharedDatabase:
    await append_rows(shared_db.app, audit_service, org_id, ROWS)
    return shared_db


def _set(seq: int, org_id: str, sql: str) -> tuple[str, dict[str, object]]:
    return sql, {"org": org_id, "seq": seq}


async def test_an_untouched_chain_verifies_and_matches_its_checkpoint(
    chain: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    report = await verify(chain.app, audit_service, org_id)
    assert report.ok and report.rows == ROWS and report.checkpoint is None
    signed = await checkpoint(chain.app, audit_service, org_id)
    await append_rows(chain.app, audit_service, org_id, 2)
    report = await verify(chain.app, audit_service, org_id)
    assert report.ok and report.rows == ROWS + 2
    assert report.checkpoint == signed.checkpoint
    assert report.unanchored_rows == 2
    assert "OK" in report.summary()


async def test_a_modified_row_is_reported(chain: SharedDatabase, audit_service: AuditService, org_id: str) -> None:
    sql = "UPDATE audit_records SET target_element = 'button 取消' WHERE org_id = :org AND seq = :seq"
    await tamper(chain.owner, _set(3, org_id, sql))
    problem = (await verify(chain.app, audit_service, org_id)).problem
    assert problem is not None
    assert (problem.kind, problem.seq) == ("modified", 3)


async def test_a_modified_and_rehashed_row_is_reported(
    chain: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    row = (await stored_rows(chain.owner, org_id))[2]
    forged = rehash(row, execution_result="failed")
    sql = "UPDATE audit_records SET execution_result = 'failed', row_hash = :hash WHERE org_id = :org AND seq = 3"
    await tamper(chain.owner, (sql, {"hash": forged["row_hash"], "org": org_id}))
    problem = (await verify(chain.app, audit_service, org_id)).problem
    assert problem is not None
    assert (problem.kind, problem.seq) == ("modified", 3)
    assert "re-hashed" in problem.message


async def test_a_deleted_row_is_reported(chain: SharedDatabase, audit_service: AuditService, org_id: str) -> None:
    await tamper(chain.owner, _set(4, org_id, "DELETE FROM audit_records WHERE org_id = :org AND seq = :seq"))
    problem = (await verify(chain.app, audit_service, org_id)).problem
    assert problem is not None
    assert (problem.kind, problem.seq) == ("deleted", 4)


async def test_a_deleted_row_with_later_rows_renumbered_is_reported(
    chain: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    params = {"org": org_id}
    await tamper(
        chain.owner,
        ("DELETE FROM audit_records WHERE org_id = :org AND seq = 2", params),
        ("UPDATE audit_records SET seq = seq + 1000 WHERE org_id = :org AND seq > 2", params),
        ("UPDATE audit_records SET seq = seq - 1001 WHERE org_id = :org AND seq > 1000", params),
        ("UPDATE audit_chain_heads SET seq = seq - 1 WHERE org_id = :org", params),
    )
    problem = (await verify(chain.app, audit_service, org_id)).problem
    assert problem is not None
    assert (problem.kind, problem.seq) == ("deleted", 2)


async def test_an_inserted_row_is_reported(chain: SharedDatabase, audit_service: AuditService, org_id: str) -> None:
    rows = await stored_rows(chain.owner, org_id)
    params = {"org": org_id}
    await tamper(
        chain.owner,
        ("UPDATE audit_records SET seq = seq + 1000 WHERE org_id = :org AND seq >= 3", params),
        ("UPDATE audit_records SET seq = seq - 999 WHERE org_id = :org AND seq > 1000", params),
        ("UPDATE audit_chain_heads SET seq = seq + 1 WHERE org_id = :org", params),
    )
    # A well-formed row that links correctly to its predecessor: only renumbering gives it away.
    forged = rehash({**rows[1], "id": "f" * 32, "seq": 3, "prev_hash": rows[1]["row_hash"], "user_id": "ghost"})
    await insert_raw(chain.owner, forged)
    problem = (await verify(chain.app, audit_service, org_id)).problem
    assert problem is not None
    assert (problem.kind, problem.seq) == ("inserted", 3)


async def test_a_row_appended_behind_the_services_back_is_reported(
    chain: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    last = (await stored_rows(chain.owner, org_id))[-1]
    forged = rehash({**last, "id": "e" * 32, "seq": ROWS + 1, "prev_hash": last["row_hash"]})
    await insert_raw(chain.owner, forged)
    problem = (await verify(chain.app, audit_service, org_id)).problem
    assert problem is not None
    assert (problem.kind, problem.seq) == ("inserted", ROWS + 1)


async def test_truncation_is_caught_by_the_checkpoint(
    chain: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await checkpoint(chain.app, audit_service, org_id)
    rows = await stored_rows(chain.owner, org_id)
    params = {"org": org_id, "hash": rows[ROWS - 3]["row_hash"]}
    await tamper(
        chain.owner,
        ("DELETE FROM audit_records WHERE org_id = :org AND seq > 4", params),
        ("UPDATE audit_chain_heads SET seq = 4, row_hash = :hash WHERE org_id = :org", params),  # cover tracks
    )
    report = await verify(chain.app, audit_service, org_id)
    assert report.problem is not None
    assert (report.problem.kind, report.problem.seq) == ("truncated", 5)
    assert f"covers {ROWS} rows but only 4 remain" in report.problem.message


async def test_a_rewritten_chain_does_not_match_the_signed_checkpoint(
    chain: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await checkpoint(chain.app, audit_service, org_id)
    rows = await stored_rows(chain.owner, org_id)
    forged, previous = [], rows[0]["row_hash"]
    for row in rows[1:]:  # change row 2, then re-hash everything after it so the chain is self-consistent
        changes = {"prev_hash": previous} | ({"approver_user_id": "nobody"} if row["seq"] == 2 else {})
        forged.append(rehash(row, **changes))
        previous = forged[-1]["row_hash"]
    statements = [
        (
            "UPDATE audit_records SET approver_user_id = :approver, prev_hash = :prev, row_hash = :hash "
            "WHERE org_id = :org AND seq = :seq",
            {"approver": r["approver_user_id"], "prev": r["prev_hash"], "hash": r["row_hash"], "org": org_id,
             "seq": r["seq"]},
        )
        for r in forged
    ]  # fmt: skip
    statements.append(
        ("UPDATE audit_chain_heads SET row_hash = :hash WHERE org_id = :org", {"hash": previous, "org": org_id})
    )
    await tamper(chain.owner, *statements)
    problem = (await verify(chain.app, audit_service, org_id)).problem
    assert problem is not None
    assert (problem.kind, problem.seq) == ("modified", 1)
    assert "signed in the checkpoint" in problem.message


async def test_a_forged_checkpoint_is_refused(chain: SharedDatabase, audit_service: AuditService, org_id: str) -> None:
    report = await verify(chain.app, audit_service, org_id)
    forged_key = SigningKey(Ed25519PrivateKey.generate())
    lie = Checkpoint(org_id, 2, "00" * 32, report.last_row_hash, "2026-01-01T00:00:00+00:00", forged_key.key_id)
    store = audit_service.checkpoints
    assert isinstance(store, DirectoryCheckpointStore)
    await store.write(sign_checkpoint(lie, forged_key), forged_key.public_pem())
    problem = (await verify(chain.app, audit_service, org_id)).problem
    assert problem is not None
    assert problem.kind == "checkpoint"


async def test_an_organisation_whose_rows_all_vanished_is_still_checked(
    chain: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    await checkpoint(chain.app, audit_service, org_id)
    params = {"org": org_id}
    await tamper(
        chain.owner,
        ("DELETE FROM audit_records WHERE org_id = :org", params),
        ("DELETE FROM audit_chain_heads WHERE org_id = :org", params),
    )
    with system_context("test verify all"):
        async with chain.app.sessions() as session, session.begin():
            reports = {report.org_id: report for report in await audit_service.verify_all(session)}
    problem = reports[org_id].problem
    assert problem is not None
    assert (problem.kind, problem.seq) == ("truncated", 1)


async def test_concurrent_appends_keep_one_contiguous_chain(
    shared_db: SharedDatabase, audit_service: AuditService, org_id: str
) -> None:
    other = f"{org_id}-b"

    async def writer(org: str, worker: int, count: int) -> list[int]:
        seqs = []
        with system_context("test writer", org_id=org):
            for index in range(count):
                async with shared_db.app.sessions() as session, session.begin():
                    appended = await audit_service.append(session, click(org, worker * 100 + index))
                    await asyncio.sleep(0)  # let the other writers run while this one holds the chain
                seqs.append(appended.seq)
        return seqs

    results = await asyncio.gather(
        *(writer(org_id, worker, 8) for worker in range(4)), *(writer(other, worker, 5) for worker in range(2))
    )
    assert sorted(seq for seqs in results[:4] for seq in seqs) == list(range(1, 33))
    assert sorted(seq for seqs in results[4:] for seq in seqs) == list(range(1, 11))
    for org, rows in ((org_id, 32), (other, 10)):
        report = await verify(shared_db.app, audit_service, org)
        assert report.ok and report.rows == rows
