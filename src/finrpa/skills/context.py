"""What a skill gets to work with: the run's verified controller, its artifacts folder, secrets on demand."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any, Protocol
from urllib.parse import urlsplit

from finrpa.browser import Controller, RunBrowser, SecretText
from finrpa.skills.base import SkillError
from finrpa.skills.page_ops import PageOps

SECRET_SCHEME = "secret://"  # noqa: S105 - a URL scheme, not a secret


class SecretResolver(Protocol):
    """Turns a ``secret://name`` reference into its value, recording the read (the vault implements it)."""

    async def resolve(self, reference: str, *, purpose: str) -> SecretText: ...


class UnsafePathError(SkillError):
    code = "unsafe_path"


@dataclass
class SkillContext:
    run_id: str
    step_id: str
    controller: Controller
    browser: RunBrowser
    artifacts_dir: Path
    secrets: SecretResolver | None = None
    org_id: str | None = None
    wait_s: float = 10.0
    upload_roots: tuple[Path, ...] = ()
    notes: list[dict[str, Any]] = field(default_factory=list)
    # Set by a write skill right before the action that may change the portal (e.g. clicking submit). A
    # failure before that point provably changed nothing, so the effect ledger may let it be retried.
    effect_attempted: bool = False
    # Checks, right before such an action, that this worker still holds the run (fencing); raises otherwise.
    effect_guard: Callable[[], Awaitable[None]] | None = None
    # Checks, right before such an action, that the node's capability manifest covers it on the page's host
    # (the run layer sets it); raises CapabilityDenied otherwise, so the skill fails before acting.
    capability_guard: Callable[[str | None], Awaitable[None]] | None = None

    async def before_effect(self) -> None:
        """Call immediately before the action that may change the portal (submit, confirm)."""
        if self.effect_guard is not None:
            await self.effect_guard()
        if self.capability_guard is not None:
            await self.capability_guard(self.current_host())
        self.effect_attempted = True

    def current_host(self) -> str | None:
        """The host of the page the skill is on (None before any page was opened)."""
        tabs = self.browser.tabs
        url = self.browser.active_tab.page.url if tabs else ""
        return urlsplit(url).hostname if url.startswith(("http://", "https://")) else None

    @cached_property
    def page(self) -> PageOps:
        return PageOps(self.controller, wait_s=self.wait_s)

    async def secret(self, value: str | SecretText, *, purpose: str) -> SecretText:
        """A value to type that may be a vault reference; the plain text never leaves the SecretText."""
        if isinstance(value, SecretText):
            return value
        if value.startswith(SECRET_SCHEME):
            if self.secrets is None:
                raise SkillError(
                    f"{value} needs the credential vault, which this run has no access to; pass the value "
                    "itself or run through `finrpa run`.",
                    code="vault_unavailable",
                )
            return await self.secrets.resolve(value, purpose=purpose)
        return SecretText(value)

    def artifact_path(self, name: str) -> Path:
        """A file inside the run's folder; names that would escape it are refused."""
        relative = PurePosixPath(name)
        if relative.is_absolute() or ".." in relative.parts or not relative.parts:
            raise UnsafePathError(f"{name!r} is not a plain file name inside the run folder; use e.g. statement.csv.")
        path = self.artifacts_dir / Path(*relative.parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def upload_file(self, name: str) -> Path:
        """A file the portal may receive: inside the run folder or a configured upload root, nowhere else."""
        path = Path(name).expanduser().resolve()
        roots = (self.artifacts_dir.resolve(), *(root.resolve() for root in self.upload_roots))
        if not any(path.is_relative_to(root) for root in roots):
            allowed = ", ".join(str(root) for root in roots)
            raise UnsafePathError(f"{name} is outside the folders uploads may come from ({allowed}).")
        if not path.is_file():
            raise UnsafePathError(f"The file to upload, {name}, does not exist.")
        return path
