"""What a running API process holds (settings, database, services, embedded worker), kept on ``app.state``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request

from finrpa.audit.service import AuditService
from finrpa.config import Settings
from finrpa.exceptions import ConfigurationError
from finrpa.tenancy.database import TenantDatabase

if TYPE_CHECKING:
    from finrpa.http.worker import DurableQueue, EmbeddedWorker

_ATTRIBUTE = "finrpa_api_state"


@dataclass
class ApiState:
    settings: Settings
    database: TenantDatabase
    audit: AuditService
    worker: EmbeddedWorker | None = None
    queue: DurableQueue | None = None
    migrations_at_head: bool = field(default=False)


def install_state(app: FastAPI, state: ApiState) -> None:
    setattr(app.state, _ATTRIBUTE, state)


def state_of(app: FastAPI) -> ApiState | None:
    found = getattr(app.state, _ATTRIBUTE, None)
    return found if isinstance(found, ApiState) else None


def api_state(request: Request) -> ApiState:
    """The process's ApiState (a dependency); set up by the app's lifespan."""
    state = state_of(request.app)
    if state is None:
        raise ConfigurationError("The API is not started: its lifespan did not open the database.")
    return state
