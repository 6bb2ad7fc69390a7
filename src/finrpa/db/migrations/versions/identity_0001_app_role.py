"""Identity: the PostgreSQL application role ``finrpa_app`` that tenant-scoped tables are protected against.

Choice: the application connects with the owner URL (the one migrations use) and runs
``SET ROLE finrpa_app`` on every new pooled connection (see ``finrpa.db.engine``), so every query the
application makes is subject to Row-Level Security. ``finrpa_app`` is NOLOGIN, owns no table, is not a
superuser and has no BYPASSRLS. A deployment that prefers a separate login role can ``ALTER ROLE finrpa_app
LOGIN PASSWORD …`` and point FINRPA_DATABASE_URL at it; nothing else changes.

``ALTER DEFAULT PRIVILEGES`` gives ``finrpa_app`` SELECT/INSERT/UPDATE/DELETE on every table (and USAGE on
every sequence) that the migrating user creates later in this schema; audit migrations revoke UPDATE/DELETE
themselves. Other branches declare ``depends_on = "identity_0001"`` so that this runs before their tables are
created. Roles are cluster-wide: creating it tolerates an existing role (another database of the same
cluster) and the downgrade drops it only when no other database still uses it.

On SQLite this revision does nothing (the identity tables come in ``identity_0002``).

Revision ID: identity_0001
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "identity_0001"
down_revision = "0001"
branch_labels = ("identity",)
depends_on = None

_CREATE_ROLE = """
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'finrpa_app') THEN
        BEGIN
            CREATE ROLE finrpa_app NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;  -- created concurrently by a migration of another database in this cluster
        END;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'finrpa_app' AND (rolsuper OR rolbypassrls)) THEN
        RAISE EXCEPTION 'The role finrpa_app is a superuser or has BYPASSRLS, which would switch off tenant '
            'isolation. Run ALTER ROLE finrpa_app NOSUPERUSER NOBYPASSRLS and migrate again.';
    END IF;
    IF NOT pg_has_role(current_user, 'finrpa_app', 'MEMBER') THEN
        EXECUTE format('GRANT finrpa_app TO %I', current_user);
    END IF;
END
$$
"""

_DROP_ROLE = """
DO $$
BEGIN
    DROP ROLE IF EXISTS finrpa_app;
EXCEPTION WHEN dependent_objects_still_exist THEN
    NULL;  -- still used by another database of this cluster
END
$$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_CREATE_ROLE)
    op.execute("GRANT USAGE ON SCHEMA public TO finrpa_app")
    op.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO finrpa_app")
    op.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO finrpa_app")
    op.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO finrpa_app")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM finrpa_app")
    op.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM finrpa_app")
    op.execute("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM finrpa_app")
    op.execute("REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM finrpa_app")
    op.execute("REVOKE ALL ON SCHEMA public FROM finrpa_app")
    op.execute(_DROP_ROLE)
