"""A run's browser session (cookies + localStorage) as a typed model, to checkpoint and restore it.

It holds session cookies: store it like a credential (encrypted), never in logs or audit rows.
"""

from __future__ import annotations

from typing import Literal, cast

from playwright.async_api import StorageState
from pydantic import BaseModel, Field


class SessionCookie(BaseModel):
    name: str
    value: str = Field(repr=False)
    domain: str
    path: str = "/"
    expires: float = -1
    httpOnly: bool = False  # Playwright's spelling, kept for a lossless round trip
    secure: bool = False
    sameSite: Literal["Lax", "None", "Strict"] = "Lax"


class StorageItem(BaseModel):
    name: str
    value: str = Field(repr=False)


class OriginStorage(BaseModel):
    origin: str
    localStorage: list[StorageItem] = Field(default_factory=list)


class SessionState(BaseModel):
    cookies: list[SessionCookie] = Field(default_factory=list)
    origins: list[OriginStorage] = Field(default_factory=list)

    @classmethod
    def from_playwright(cls, state: StorageState) -> SessionState:
        return cls.model_validate(dict(state))

    def to_playwright(self) -> StorageState:
        return cast(StorageState, self.model_dump())
