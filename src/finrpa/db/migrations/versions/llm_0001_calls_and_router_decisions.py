"""LLM layer: ``llm_calls`` (usage and cost per call) and ``llm_router_decisions`` (tier choices with the page
features behind them). Both are tenant-scoped and protected by Row-Level Security on PostgreSQL.

Revision ID: llm_0001
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from finrpa.db.migrations.rls import disable_tenant_rls, enable_tenant_rls

revision = "llm_0001"
down_revision = "0001"
branch_labels = ("llm",)
depends_on = "identity_0001"


def _common() -> list[sa.Column[object]]:
    return [
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("org_id", sa.String(32), nullable=False),
        sa.Column("run_id", sa.String(32), nullable=True),
        sa.Column("tier", sa.String(16), nullable=False),
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "llm_calls",
        *_common(),
        sa.Column("dept_id", sa.String(32), nullable=True),
        sa.Column("template_id", sa.String(128), nullable=True),
        sa.Column("model", sa.String(128), nullable=False),
        sa.Column("prompt_id", sa.String(128), nullable=False),
        sa.Column("prompt_version", sa.Integer, nullable=False),
        sa.Column("input_tokens", sa.Integer, nullable=False),
        sa.Column("output_tokens", sa.Integer, nullable=False),
        sa.Column("cost_usd", sa.Numeric(14, 6), nullable=False),
        sa.Column("latency_ms", sa.Integer, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("success", sa.Boolean, nullable=False),
        sa.Column("cached", sa.Boolean, nullable=False),
    )
    op.create_index("ix_llm_calls_org_id", "llm_calls", ["org_id"])
    op.create_index("ix_llm_calls_run_id", "llm_calls", ["run_id"])
    op.create_index("ix_llm_calls_org_day", "llm_calls", ["org_id", "day"])
    enable_tenant_rls("llm_calls")

    op.create_table(
        "llm_router_decisions",
        *_common(),
        sa.Column("page_signature", sa.String(64), nullable=False),
        sa.Column("element_count", sa.Integer, nullable=False),
        sa.Column("iframe_depth", sa.Integer, nullable=False),
        sa.Column("has_shadow_dom", sa.Boolean, nullable=False),
        sa.Column("form_field_count", sa.Integer, nullable=False),
        sa.Column("dynamic_content", sa.Boolean, nullable=False),
        sa.Column("complexity", sa.String(16), nullable=False),
        sa.Column("promoted", sa.Boolean, nullable=False),
    )
    op.create_index("ix_llm_router_decisions_org_id", "llm_router_decisions", ["org_id"])
    op.create_index("ix_llm_router_decisions_run_id", "llm_router_decisions", ["run_id"])
    op.create_index("ix_llm_router_decisions_org_day", "llm_router_decisions", ["org_id", "day"])
    enable_tenant_rls("llm_router_decisions")


def downgrade() -> None:
    disable_tenant_rls("llm_router_decisions")
    op.drop_table("llm_router_decisions")
    disable_tenant_rls("llm_calls")
    op.drop_table("llm_calls")
