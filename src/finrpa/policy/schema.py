"""The Cedar schema FinRPA validates policies and requests against: ``cedar/schema.cedar`` plus one action
declaration per operation of the catalogue."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

import cedarpy

from finrpa.policy.actions import ActionCatalog, ActionSpec

PRINCIPAL_TYPES = ("User", "Agent")
RESOURCE_TYPES = ("Portal", "Department", "BusinessLine", "DataClass")


@dataclass(frozen=True)
class PolicySchema:
    """Schema text, its parsed handle (parsed once) and the catalogue it was built from."""

    text: str
    handle: cedarpy.Schema
    catalog: ActionCatalog

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @classmethod
    def build(cls, catalog: ActionCatalog) -> PolicySchema:
        base = files("finrpa.policy").joinpath("cedar", "schema.cedar").read_text(encoding="utf-8")
        text = "\n".join([base.rstrip(), "", *(_declaration(spec) for spec in catalog), ""])
        return cls(text=text, handle=cedarpy.Schema.from_str(text), catalog=catalog)


def _declaration(spec: ActionSpec) -> str:
    groups = ", ".join(sorted(group.value for group in spec.groups))
    return (
        f'action "{spec.name}" in [{groups}] appliesTo {{ principal: [{", ".join(PRINCIPAL_TYPES)}], '
        f'resource: [{", ".join(RESOURCE_TYPES)}], context: RequestContext }};'
    )


@lru_cache(maxsize=1)
def default_schema() -> PolicySchema:
    return PolicySchema.build(ActionCatalog.default())


def default_policies_text() -> str:
    return files("finrpa.policy").joinpath("cedar", "defaults.cedar").read_text(encoding="utf-8")
