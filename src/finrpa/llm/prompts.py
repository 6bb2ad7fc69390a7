"""Versioned prompt templates, loaded by id from YAML files and rendered with untrusted data fenced.

A prompt lives in ``<library>/<prompt id>/<version>.yaml`` with the keys ``id``, ``version``,
``description``, ``system`` and ``user`` (Jinja2 templates). The LLM layer ships its own prompts under
``finrpa/llm/prompts``; another domain keeps its prompts in its own package and loads them with
``PromptLibrary.for_package("finrpa.risk")``. Every call records the prompt id and version it used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

import yaml
from jinja2 import StrictUndefined, Template, TemplateError
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from finrpa.llm.errors import PromptError
from finrpa.llm.fencing import UNTRUSTED_DATA_NOTICE, Untrusted, fence_untrusted

PromptValue = str | int | float | Untrusted
_ID = re.compile(r"^[a-z][a-z0-9_.]{0,127}$")
# Prompts are plain text for a model, not HTML, so HTML autoescaping would only corrupt them.
_ENVIRONMENT = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)


@dataclass(frozen=True)
class RenderedPrompt:
    system: str
    user: str
    has_untrusted_data: bool


class PromptTemplate(BaseModel):
    """One version of one prompt."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=_ID.pattern)
    version: int = Field(ge=1)
    description: str = ""
    system: str
    user: str

    def render(self, variables: Mapping[str, PromptValue] | None = None) -> RenderedPrompt:
        """Fill the templates; :class:`Untrusted` values are fenced and the system prompt says so."""
        values: dict[str, Any] = {}
        has_untrusted = False
        for name, value in (variables or {}).items():
            if isinstance(value, Untrusted):
                values[name] = fence_untrusted(value.text, value.label)
                has_untrusted = True
            else:
                values[name] = value
        system = self._render_part("system", self.system, values)
        user = self._render_part("user", self.user, values)
        if has_untrusted:
            system = f"{system}\n\n{UNTRUSTED_DATA_NOTICE}"
        return RenderedPrompt(system=system, user=user, has_untrusted_data=has_untrusted)

    def _render_part(self, part: str, source: str, values: dict[str, Any]) -> str:
        try:
            return _compiled(source).render(values).strip()
        except TemplateError as exc:
            raise PromptError(
                f"Prompt {self.id} v{self.version} ({part}) could not be rendered: {exc.message}. "
                "Pass every variable the template uses."
            ) from exc


class PromptLibrary:
    """The prompts found under one folder: ``<id>/<version>.yaml``."""

    def __init__(self, root: Traversable) -> None:
        self._root = root
        self._loaded: dict[tuple[str, int], PromptTemplate] = {}

    @classmethod
    def for_package(cls, package: str, folder: str = "prompts") -> PromptLibrary:
        return cls(files(package) / folder)

    def versions(self, prompt_id: str) -> list[int]:
        folder = self._root / prompt_id
        if not _ID.match(prompt_id) or not folder.is_dir():
            return []
        found = (entry.name.removesuffix(".yaml") for entry in folder.iterdir() if entry.name.endswith(".yaml"))
        return sorted(int(name) for name in found if name.isdigit())

    def load(self, prompt_id: str, version: int | None = None) -> PromptTemplate:
        """The given version of a prompt, or its highest version."""
        available = self.versions(prompt_id)
        if not available:
            raise PromptError(f"No prompt {prompt_id!r} exists under {self._root}; check the prompt id.")
        chosen = available[-1] if version is None else version
        if chosen not in available:
            raise PromptError(f"Prompt {prompt_id!r} has versions {available}, not {chosen}.")
        key = (prompt_id, chosen)
        if key not in self._loaded:
            self._loaded[key] = self._read(prompt_id, chosen)
        return self._loaded[key]

    def _read(self, prompt_id: str, version: int) -> PromptTemplate:
        source = self._root / prompt_id / f"{version}.yaml"
        try:
            template = PromptTemplate.model_validate(yaml.safe_load(source.read_text(encoding="utf-8")))
        except (yaml.YAMLError, ValidationError) as exc:
            raise PromptError(f"Prompt file {source} is malformed: {exc}") from exc
        if (template.id, template.version) != (prompt_id, version):
            raise PromptError(
                f"Prompt file {source} declares id {template.id!r} version {template.version}; "
                f"its path says {prompt_id!r} version {version}. Make them agree."
            )
        return template


@lru_cache(maxsize=512)
def _compiled(source: str) -> Template:
    return _ENVIRONMENT.from_string(source)


_LLM_PROMPTS = PromptLibrary.for_package("finrpa.llm")


def load_prompt(prompt_id: str, version: int | None = None) -> PromptTemplate:
    """A prompt shipped with the LLM layer (``finrpa/llm/prompts``)."""
    return _LLM_PROMPTS.load(prompt_id, version)
