"""The page model: a versioned, typed snapshot of what a tab shows and what can be acted on.

A :class:`PageSnapshot` is built by one injected script per frame (see ``observe.py``). Elements carry a
:class:`Fingerprint` that re-identifies them on the live page even after ids and classes are regenerated.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SNAPSHOT_VERSION = 1


class Fingerprint(BaseModel):
    """What makes an element the same element after a re-render (never ids or classes)."""

    model_config = ConfigDict(frozen=True)

    role: str
    name: str
    label: str = ""
    container: str = Field(default="", description="Nearest heading, legend or dialog name around it.")
    row: str = Field(default="", description="Text of the other cells of its table row or list item.")
    index: int = Field(default=0, description="Position among visible elements of the same role and name.")
    count: int = Field(default=1, description="How many visible elements share its role and name.")
    frame: str = Field(default="main", description="Frame path: 'main', or child positions such as 'main/0/1'.")


class ElementInfo(BaseModel):
    """One interactive element as the snapshot saw it."""

    ref: str
    role: str
    name: str
    label: str = ""
    tag: str
    type: str | None = None
    value: str | None = Field(default=None, description="Masked when sensitive (password, card/ID number).")
    sensitive: bool = False
    options: list[str] | None = None
    checked: bool | None = None
    disabled: bool = False
    readonly: bool = False
    expanded: bool | None = None
    required: bool = False
    visible: bool = True
    bbox: tuple[int, int, int, int] = Field(description="x, y, width, height in the tab's viewport.")
    frame_id: str = "f0"
    frame_path: str = "main"
    shadow_path: list[str] = Field(default_factory=list, description="Tag names of enclosing shadow hosts.")
    date: str | None = Field(default=None, description="Full date of a date-picker day cell, when exposed.")
    href: str | None = None
    fingerprint: Fingerprint


class FrameInfo(BaseModel):
    frame_id: str
    path: str
    parent_id: str | None
    url: str
    name: str = ""
    cross_origin: bool = False
    document: str = Field(description="Token of the frame's current document (changes on navigation).")
    epoch: int = 0
    changes: int = Field(default=0, description="The frame's count of DOM changes and input events when observed.")
    offset: tuple[float, float] = (0.0, 0.0)
    reachable: bool = True


class TableSummary(BaseModel):
    table_id: str
    caption: str
    headers: list[str]
    row_count: int
    frame_id: str = "f0"


class DialogInfo(BaseModel):
    kind: Literal["modal", "dialog", "alert", "confirm", "prompt", "beforeunload"]
    name: str = ""
    text: str = ""
    native: bool = False
    frame_id: str | None = None


class Heading(BaseModel):
    level: int
    text: str
    frame_id: str = "f0"


class PageSnapshot(BaseModel):
    """What a tab shows at one moment; actions name the snapshot they were chosen from."""

    version: int = SNAPSHOT_VERSION
    snapshot_id: str
    tab_id: str
    navigation_id: str = Field(description="Changes on every main-frame navigation (document or history).")
    epoch: int = Field(description="Sum of the frames' significant-mutation counters; changes when they do.")
    url: str
    title: str
    dom_digest: str | None = Field(default=None, description="SHA-256 of the cleaned main-frame DOM.")
    frames: list[FrameInfo]
    elements: list[ElementInfo]
    omitted_elements: int = 0
    text: str = ""
    headings: list[Heading] = Field(default_factory=list)
    dialogs: list[DialogInfo] = Field(default_factory=list)
    tables: list[TableSummary] = Field(default_factory=list)
    roles: list[str] | None = Field(
        default=None, description="Set when the snapshot lists only the elements of these roles (a table page's)."
    )
    build_ms: float = 0.0

    def element(self, ref: str) -> ElementInfo | None:
        """The element with this ref, or None."""
        for element in self.elements:
            if element.ref == ref:
                return element
        return None

    def frame(self, frame_id: str) -> FrameInfo | None:
        for frame in self.frames:
            if frame.frame_id == frame_id:
                return frame
        return None

    def find(self, *, name: str, role: str | None = None) -> list[ElementInfo]:
        """Elements whose accessible name (or label) equals ``name``, optionally of one role."""
        return [e for e in self.elements if (e.name == name or e.label == name) and (role is None or e.role == role)]
