"""Typed events a run's browser reports as they happen (blocked egress, dialogs, tabs, downloads)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field


def _now() -> datetime:
    return datetime.now(UTC)


class _Event(BaseModel):
    run_id: str
    at: datetime = Field(default_factory=_now)


class EgressBlocked(_Event):
    """A request to a host outside the run's allowlist was aborted."""

    kind: Literal["egress_blocked"] = "egress_blocked"
    url: str
    host: str
    resource_type: str
    navigation: bool = False


class DialogOpened(_Event):
    kind: Literal["dialog_opened"] = "dialog_opened"
    tab_id: str
    dialog_type: str
    message: str


class DialogClosed(_Event):
    kind: Literal["dialog_closed"] = "dialog_closed"
    tab_id: str
    accepted: bool
    automatic: bool = Field(description="Closed by policy or timeout rather than by an action.")


class TabOpened(_Event):
    kind: Literal["tab_opened"] = "tab_opened"
    tab_id: str
    url: str
    opener_tab_id: str | None = None


class TabClosed(_Event):
    kind: Literal["tab_closed"] = "tab_closed"
    tab_id: str


class DownloadSaved(_Event):
    kind: Literal["download_saved"] = "download_saved"
    tab_id: str
    filename: str
    size: int
    sha256: str
    media_type: str


class PageCrashed(_Event):
    kind: Literal["page_crashed"] = "page_crashed"
    tab_id: str


BrowserEvent = Annotated[
    EgressBlocked | DialogOpened | DialogClosed | TabOpened | TabClosed | DownloadSaved | PageCrashed,
    Field(discriminator="kind"),
]
EventSink = Callable[[BrowserEvent], None]
