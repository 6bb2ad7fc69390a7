"""Markers that tell the tenancy hook how to filter a model, beyond ``finrpa.db.base.TenantScoped``.

* ``TenantScoped`` (in finrpa.db.base): rows of one organisation, filtered by ``org_id``.
* ``DepartmentScoped``: a TenantScoped model whose rows also belong to a department and/or a business
  line. A user context that is not org-wide sees a row only if its ``dept_id`` is one of the
  user's visible departments or its ``bl_id`` one of the user's business lines. A row with
  neither set is visible to org-wide contexts only (deny by default).
* ``TenantRoot``: the organisations table itself; its ``id`` is the tenant key.
"""

from __future__ import annotations

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from finrpa.db.base import TenantScoped


class DepartmentScoped(TenantScoped):
    """Rows owned by an organisation and placed in a department and/or a business line."""

    dept_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    bl_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)


class TenantRoot:
    """Marks the organisation model: visible only to a context of that organisation (or cross-org system)."""

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
