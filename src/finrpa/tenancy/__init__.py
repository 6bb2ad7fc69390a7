"""Tenant isolation in two walls: an ORM hook that scopes every statement, and PostgreSQL Row-Level Security.

Public API: :class:`TenantContext`, :func:`use_tenant`, :func:`current_tenant`, :func:`require_tenant`,
:func:`system_context`, :func:`install_tenancy`, :func:`open_tenant_database`, :class:`DepartmentScoped`,
:class:`TenantRoot`, and the errors :class:`TenantContextMissingError` / :class:`TenantMismatchError`.
"""

from finrpa.tenancy.context import TenantContext, current_tenant, require_tenant, system_context, use_tenant
from finrpa.tenancy.database import TenantDatabase, open_tenant_database, use_app_role
from finrpa.tenancy.errors import TenantContextMissingError, TenantMismatchError
from finrpa.tenancy.scoping import DepartmentScoped, TenantRoot
from finrpa.tenancy.session import RlsSession, TenantSession, install_tenancy, tenant_criteria

__all__ = [
    "DepartmentScoped",
    "RlsSession",
    "TenantContext",
    "TenantContextMissingError",
    "TenantDatabase",
    "TenantMismatchError",
    "TenantRoot",
    "TenantSession",
    "current_tenant",
    "install_tenancy",
    "open_tenant_database",
    "require_tenant",
    "system_context",
    "tenant_criteria",
    "use_app_role",
    "use_tenant",
]
