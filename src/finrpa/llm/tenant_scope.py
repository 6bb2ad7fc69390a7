"""The tenant context under which the LLM layer writes its own rows (usage, router decisions).

A request or run step normally has a tenant context already and the rows are written under it (the
tenancy hook refuses a row of another organisation). A background caller without any context writes under
a system context bound to that one organisation, which the tenancy layer logs and counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from finrpa.tenancy import current_tenant, system_context


@contextmanager
def writing_for(org_id: str, reason: str) -> Iterator[None]:
    if current_tenant() is not None:
        yield
        return
    with system_context(reason, org_id=org_id):
        yield
