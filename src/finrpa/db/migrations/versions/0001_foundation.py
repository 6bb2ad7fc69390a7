"""Foundation: the root every domain's migration branch grows from.

Each domain owns a branch (``branch_labels``) whose first revision has ``down_revision = "0001"``;
``finrpa migrate`` upgrades all heads. Cross-domain foreign keys use ``depends_on``.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "finrpa_installation",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("installed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("installed_version", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("finrpa_installation")
