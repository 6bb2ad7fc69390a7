"""Approvals: one request per attempt of a step, so a step a person retries asks for approval afresh.

Adds ``approval_requests.attempt`` (0 for the existing rows) and widens the request's unique key from
(org, run, subtask, payload hash) to (org, run, subtask, payload hash, attempt). The maker-checker CHECKs and
foreign keys are unchanged.

SQLite cannot drop a table constraint, so there the table is rebuilt (Alembic batch mode). Connections run
with ``PRAGMA foreign_keys=ON`` inside the migration's transaction, where the pragma cannot be switched off,
and dropping the old table would cascade to ``approval_decisions``: the decisions are set aside in a
temporary table and put back once the rebuilt table holds the requests again.

Revision ID: approvals_0002
Revises: approvals_0001
Create Date: 2027-01-10
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op

revision = "approvals_0002"
down_revision = "approvals_0001"
branch_labels = None
depends_on = None

_REQUESTS = "approval_requests"
_OLD_KEY = "uq_approval_requests_org_id_run_id_subtask_id_payload_hash"
_NEW_KEY = "uq_approval_requests_action_attempt"
_ATTEMPT_CHECK = "ck_approval_requests_attempt"


def upgrade() -> None:
    attempt = sa.Column("attempt", sa.Integer, nullable=False, server_default="0")
    with _decisions_kept(), op.batch_alter_table(_REQUESTS) as batch:
        batch.add_column(attempt)
        batch.drop_constraint(_OLD_KEY, type_="unique")
        batch.create_unique_constraint(_NEW_KEY, ["org_id", "run_id", "subtask_id", "payload_hash", "attempt"])
        batch.create_check_constraint(_ATTEMPT_CHECK, "attempt >= 0")


def downgrade() -> None:
    # Several attempts of one action cannot share the old key: keep the latest attempt of each.
    op.execute(
        "DELETE FROM approval_requests WHERE EXISTS (SELECT 1 FROM approval_requests later "
        "WHERE later.org_id = approval_requests.org_id AND later.run_id = approval_requests.run_id "
        "AND later.subtask_id = approval_requests.subtask_id AND later.payload_hash = approval_requests.payload_hash "
        "AND later.attempt > approval_requests.attempt)"
    )
    with _decisions_kept(), op.batch_alter_table(_REQUESTS) as batch:
        batch.drop_constraint(_ATTEMPT_CHECK, type_="check")
        batch.drop_constraint(_NEW_KEY, type_="unique")
        batch.create_unique_constraint(_OLD_KEY, ["org_id", "run_id", "subtask_id", "payload_hash"])
        batch.drop_column("attempt")


@contextmanager
def _decisions_kept() -> Iterator[None]:
    """On SQLite, set the decisions aside while ``approval_requests`` is rebuilt (see the module docstring)."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        op.execute("CREATE TEMPORARY TABLE _approval_decisions_kept AS SELECT * FROM approval_decisions")
    yield
    if sqlite:
        op.execute("DELETE FROM approval_decisions")
        op.execute("INSERT INTO approval_decisions SELECT * FROM _approval_decisions_kept")
        op.execute("DROP TABLE _approval_decisions_kept")
