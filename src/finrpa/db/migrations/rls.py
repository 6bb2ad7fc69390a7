"""PostgreSQL Row-Level Security for tenant-scoped tables: the database's own wall between organisations.

Call these from a migration, after ``op.create_table``::

    from finrpa.db.migrations.rls import enable_tenant_rls, disable_tenant_rls

    def upgrade() -> None:
        op.create_table("runs", ..., sa.Column("org_id", sa.String(32), nullable=False))
        enable_tenant_rls("runs")

    def downgrade() -> None:
        disable_tenant_rls("runs")
        op.drop_table("runs")

and declare ``depends_on = "identity_0001"`` in the branch's first revision, so that the application role
``finrpa_app`` and its default privileges exist before the table is created.

What ``enable_tenant_rls(table)`` does on PostgreSQL (on SQLite it does nothing; there the ORM hook of
:mod:`finrpa.tenancy` is the only wall):

* ``ENABLE`` and ``FORCE ROW LEVEL SECURITY`` (FORCE: the rule holds even for the table owner, unless it is
  a superuser or has BYPASSRLS — which the application role ``finrpa_app`` never has);
* one permissive policy ``finrpa_tenant_isolation`` for ALL commands, with the same expression as
  ``USING`` (which rows are visible / can be updated or deleted) and ``WITH CHECK`` (which rows may be
  written)::

      org_id = NULLIF(current_setting('finrpa.org_id', true), '')
      OR current_setting('finrpa.system', true) = 'on'

How the settings get there: :mod:`finrpa.tenancy` runs ``set_config('finrpa.org_id', <org>, true)`` at the
start of every transaction (transaction-local, so a pooled connection handed to another tenant carries no
setting). A missing or empty setting matches no row (``NULLIF`` turns ``''`` into NULL and ``org_id = NULL``
is never true): no context means no rows, never all rows.

System context: a worker that must see every organisation (e.g. the scheduler scanning due runs) enters
``finrpa.tenancy.system_context(reason)``, which is logged and recorded, and which sets
``finrpa.system = 'on'`` for that transaction only. A system context bound to one organisation sets only
``finrpa.org_id``. RLS guards against a missing filter in application code; it is not a defence against a
caller who can run arbitrary SQL as the application role (such a caller could also set the setting).

``column`` lets a table whose tenant key is not called ``org_id`` (the ``organizations`` table itself, keyed
by ``id``) use the same rule.
"""

from __future__ import annotations

import re

from alembic import op

APP_ROLE = "finrpa_app"
POLICY_NAME = "finrpa_tenant_isolation"
ORG_SETTING = "finrpa.org_id"
SYSTEM_SETTING = "finrpa.system"

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def tenant_predicate(column: str = "org_id") -> str:
    """The SQL boolean expression used for both USING and WITH CHECK."""
    _check_identifier(column)
    return (
        f"({column} = NULLIF(current_setting('{ORG_SETTING}', true), '') "
        f"OR current_setting('{SYSTEM_SETTING}', true) = 'on')"
    )


def enable_tenant_rls(table: str, column: str = "org_id") -> None:
    """Turn on Row-Level Security for ``table`` with FinRPA's tenant policy (no-op on SQLite)."""
    _check_identifier(table)
    if op.get_bind().dialect.name != "postgresql":
        return
    predicate = tenant_predicate(column)
    op.execute(f'ALTER TABLE "{table}" ENABLE ROW LEVEL SECURITY')
    op.execute(f'ALTER TABLE "{table}" FORCE ROW LEVEL SECURITY')
    op.execute(f'DROP POLICY IF EXISTS {POLICY_NAME} ON "{table}"')
    op.execute(
        f'CREATE POLICY {POLICY_NAME} ON "{table}" AS PERMISSIVE FOR ALL TO PUBLIC '
        f"USING {predicate} WITH CHECK {predicate}"
    )


def disable_tenant_rls(table: str) -> None:
    """Undo :func:`enable_tenant_rls` (for downgrades; no-op on SQLite)."""
    _check_identifier(table)
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(f'DROP POLICY IF EXISTS {POLICY_NAME} ON "{table}"')
    op.execute(f'ALTER TABLE "{table}" NO FORCE ROW LEVEL SECURITY')
    op.execute(f'ALTER TABLE "{table}" DISABLE ROW LEVEL SECURITY')


def _check_identifier(name: str) -> None:
    if not _IDENTIFIER.match(name):
        raise ValueError(
            f"{name!r} is not a plain lower-case SQL identifier; use letters, digits and underscores only."
        )
