"""Errors of tenant isolation. Both are 403s: the caller asked for something outside its organisation."""

from __future__ import annotations

from finrpa.exceptions import PermissionDeniedError


class TenantContextMissingError(PermissionDeniedError):
    """A tenant-scoped write was attempted with no TenantContext (reads simply return no rows)."""

    code = "tenant_context_missing"


class TenantMismatchError(PermissionDeniedError):
    """A row of one organisation was written while acting for another."""

    code = "tenant_mismatch"
