"""Typed browser actions (a discriminated union on ``kind``) and what the controller reports back.

Every action may name the snapshot it was chosen from (``snapshot_id``); element actions name the
``target`` by ``ref`` (from that snapshot) and/or the expected ``fingerprint``. An action with a fingerprint
but no snapshot (an action-cache replay) skips the staleness check but is still re-resolved on the live page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from finrpa.browser.downloads import DownloadedFile
from finrpa.browser.snapshot import DialogInfo, Fingerprint, PageSnapshot

DEFAULT_TIMEOUT_MS = 10_000


class Target(BaseModel):
    """Which element: a ref of the named snapshot, the fingerprint the caller expects, or both."""

    model_config = ConfigDict(frozen=True)

    ref: str | None = None
    fingerprint: Fingerprint | None = None

    @model_validator(mode="after")
    def _needs_one(self) -> Target:
        if self.ref is None and self.fingerprint is None:
            raise ValueError("A target needs a ref (from a snapshot) or a fingerprint.")
        return self


class ElementExpectation(BaseModel):
    role: str | None = None
    name: str
    state: Literal["visible", "hidden", "enabled", "disabled", "checked", "unchecked"] = "visible"


class Expectation(BaseModel):
    """What must hold after an action for it to count as done (all given conditions, within the timeout)."""

    url_contains: str | None = None
    url_matches: str | None = Field(default=None, description="A regular expression searched in the URL.")
    text_visible: str | None = None
    text_gone: str | None = None
    element: ElementExpectation | None = None
    dialog: bool = Field(default=False, description="A native dialog opened (or was answered by policy).")
    download: bool = False
    new_tab: bool = False

    def is_empty(self) -> bool:
        return self == Expectation()


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    snapshot_id: str | None = None
    tab_id: str | None = None
    timeout_ms: int = Field(default=DEFAULT_TIMEOUT_MS, ge=1, le=600_000)


class _ElementAction(_Action):
    target: Target


class Navigate(_Action):
    kind: Literal["navigate"] = "navigate"
    url: str
    wait_until: Literal["commit", "domcontentloaded", "load", "networkidle"] = "load"
    timeout_ms: int = Field(default=30_000, ge=1, le=600_000)


class Click(_ElementAction):
    kind: Literal["click"] = "click"
    expect: Expectation | None = Field(
        default=None, description="Unset: something observable must change (navigation, DOM, dialog, download)."
    )
    dialog: Literal["accept", "dismiss"] | None = Field(
        default=None, description="Answer a native dialog this click opens; unset leaves it open for an action."
    )


class Fill(_ElementAction):
    kind: Literal["fill"] = "fill"
    value: str | SecretStr
    sensitive: bool = Field(default=False, description="Mask this field in snapshots, screenshots and records.")
    expect_value: str | None = Field(
        default=None, description="What the field should read back when the portal reformats input."
    )


class Select(_ElementAction):
    kind: Literal["select"] = "select"
    option: str = Field(description="The option's visible label (preferred) or its value.")


class Check(_ElementAction):
    kind: Literal["check"] = "check"


class Uncheck(_ElementAction):
    kind: Literal["uncheck"] = "uncheck"


class Press(_Action):
    kind: Literal["press"] = "press"
    key: str = Field(description="A Playwright key name such as Enter, Tab, Escape, Control+A.")
    target: Target | None = None
    expect: Expectation | None = None


class Upload(_ElementAction):
    kind: Literal["upload"] = "upload"
    files: list[Path] = Field(min_length=1)


class WaitFor(_Action):
    kind: Literal["wait_for"] = "wait_for"
    condition: Expectation


class Scroll(_Action):
    kind: Literal["scroll"] = "scroll"
    target: Target | None = Field(default=None, description="Scroll this element into view; else by dy.")
    dy: int = 600


class SwitchTab(_Action):
    kind: Literal["switch_tab"] = "switch_tab"
    to_tab: str


class AcceptDialog(_Action):
    kind: Literal["accept_dialog"] = "accept_dialog"
    prompt_text: str | SecretStr | None = None


class DismissDialog(_Action):
    kind: Literal["dismiss_dialog"] = "dismiss_dialog"


class Download(_ElementAction):
    kind: Literal["download"] = "download"
    timeout_ms: int = Field(default=30_000, ge=1, le=600_000)


class Extract(_Action):
    kind: Literal["extract"] = "extract"
    what: Literal["table", "text"]
    table_id: str | None = Field(default=None, description="A table of the snapshot (t1, t2…); else the first.")
    caption: str | None = Field(default=None, description="Without a snapshot: the table with this caption…")
    headers: list[str] | None = Field(default=None, description="…and these headers, as a snapshot showed them.")
    max_rows: int = Field(default=500, ge=1, le=10_000)
    observe_roles: list[str] | None = Field(
        default=None,
        description="Also observe the page in the same call: the result's snapshot lists the elements of these "
        "roles (e.g. a table page's next-page link), and later actions may name it.",
    )


Action = Annotated[
    Navigate
    | Click
    | Fill
    | Select
    | Check
    | Uncheck
    | Press
    | Upload
    | WaitFor
    | Scroll
    | SwitchTab
    | AcceptDialog
    | DismissDialog
    | Download
    | Extract,
    Field(discriminator="kind"),
]
WRITE_KINDS = frozenset({"click", "fill", "select", "check", "uncheck", "press", "upload", "download"})


class ExtractedTable(BaseModel):
    caption: str
    headers: list[str]
    rows: list[list[str]]
    truncated: bool = False


class ActionResult(BaseModel):
    """A verified action: it ran and its postcondition held."""

    action_index: int
    kind: str
    duration_ms: float
    url_before: str
    url_after: str
    value: str | None = Field(default=None, description="Read-back value, masked when sensitive.")
    navigated: bool = False
    dialog: DialogInfo | None = None
    download: DownloadedFile | None = None
    table: ExtractedTable | None = None
    text: str | None = None
    snapshot: PageSnapshot | None = Field(default=None, description="Observed with the table (observe_roles).")
    tab_id: str
    new_tab_id: str | None = None
