"""Turning Cedar policy texts (the shipped defaults and an organisation's own) into a checked, compiled set.

Design of ``require_approval``: Cedar itself only permits or forbids. A ``forbid`` annotated
``@effect("require_approval")`` is an *approval rule*: it does not deny outright, it says "not without a
person's approval". The engine evaluates all policies at once: Allow → allow; Deny because of a final forbid →
deny; Deny with no permit → deny (``deny.not_permitted``); Deny because of approval rules only → it asks the
set without approval rules, and if that allows, the answer is require_approval. Reason codes are the ``@id``
annotations of the deciding policies, so every policy must carry a unique ``@id``; ``@reason`` holds the
sentence people see.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

import cedarpy

from finrpa.policy.errors import PolicyValidationError
from finrpa.policy.schema import PolicySchema

APPROVAL_EFFECT = "require_approval"
_MAX_MESSAGES = 3
_NOISE = re.compile(r'for policy `[^`]*`, | for Action::"[^"]*"')


@dataclass(frozen=True)
class PolicyInfo:
    policy_id: str
    reason: str
    effect: Literal["permit", "forbid"]
    requires_approval: bool
    source: str


@dataclass(frozen=True)
class PolicySource:
    """One text of policies: the shipped defaults, or one of an organisation's stored policy texts."""

    name: str
    text: str


@dataclass(frozen=True)
class CompiledPolicies:
    """``combined`` holds every policy (one evaluation answers most requests); ``hard`` leaves out the
    approval rules (asked only when nothing but approval rules forbade)."""

    combined: cedarpy.PolicySet
    hard: cedarpy.PolicySet
    info: dict[str, PolicyInfo]
    version: str

    def approval_rules(self, policy_ids: list[str]) -> list[str]:
        return [policy_id for policy_id in policy_ids if self.info[policy_id].requires_approval]


def check_policy_text(source: PolicySource, schema: PolicySchema) -> list[PolicyInfo]:
    """Parse and validate one text against the schema; raise PolicyValidationError with the validator's
    message. Returns what the text declares (ids, reasons, effects)."""
    return [info for info, _ in _parse(source, schema)]


def compile_policies(sources: list[PolicySource], schema: PolicySchema) -> CompiledPolicies:
    hard: dict[str, Any] = {}
    approval: dict[str, Any] = {}
    info: dict[str, PolicyInfo] = {}
    for source in sources:
        for policy_info, body in _parse(source, schema):
            if policy_info.policy_id in info:
                first = info[policy_info.policy_id].source
                raise PolicyValidationError(
                    f"Policy id {policy_info.policy_id!r} in {source.name} is already used by {first}; "
                    "give every policy a unique @id."
                )
            info[policy_info.policy_id] = policy_info
            (approval if policy_info.requires_approval else hard)[policy_info.policy_id] = body
    digest = hashlib.sha256()
    for source in sources:
        digest.update(f"{source.name}\0{source.text}\0".encode())
    return CompiledPolicies(
        combined=_policy_set(hard | approval),
        hard=_policy_set(hard),
        info=info,
        version=digest.hexdigest()[:16],
    )


def _policy_set(policies: dict[str, Any]) -> cedarpy.PolicySet:
    document = {"staticPolicies": policies, "templates": {}, "templateLinks": []}
    return cedarpy.PolicySet.from_json_str(json.dumps(document))


def _parse(source: PolicySource, schema: PolicySchema) -> list[tuple[PolicyInfo, dict[str, Any]]]:
    try:
        document = json.loads(cedarpy.policies_to_json_str(source.text))
    except ValueError as exc:
        raise PolicyValidationError(f"{source.name} does not parse as Cedar: {exc}") from exc
    if document.get("templates"):
        raise PolicyValidationError(
            f"{source.name} contains a policy template (?principal/?resource); write concrete policies instead."
        )
    result = cedarpy.validate_policies(source.text, schema.handle)
    if not result.validation_passed:
        summary = _summary(result.errors, result.id_annotations_by_policy_id)
        raise PolicyValidationError(f"{source.name} does not validate against the FinRPA schema: {summary}")
    policies: dict[str, dict[str, Any]] = document.get("staticPolicies", {})
    if not policies:
        raise PolicyValidationError(f"{source.name} contains no policy.")
    return [(_info(source, key, body), body) for key, body in policies.items()]


def _info(source: PolicySource, key: str, body: dict[str, Any]) -> PolicyInfo:
    annotations: dict[str, str | None] = body.get("annotations", {})
    policy_id = (annotations.get("id") or "").strip()
    if not policy_id:
        raise PolicyValidationError(
            f"A policy in {source.name} ({key}) has no @id annotation; add @id(\"…\"): it is the reason code "
            "every decision reports."
        )
    effect = body["effect"]
    marker = annotations.get("effect")
    if marker is not None and (marker != APPROVAL_EFFECT or effect != "forbid"):
        raise PolicyValidationError(
            f"Policy {policy_id!r} in {source.name}: @effect only accepts \"{APPROVAL_EFFECT}\", on a forbid policy."
        )
    reason = (annotations.get("reason") or "").strip() or f"Policy {policy_id} decided."
    return PolicyInfo(policy_id, reason, effect, marker == APPROVAL_EFFECT, source.name)


def _summary(errors: list[cedarpy.ValidationError], ids: dict[str, str]) -> str:
    """The validator's messages, each once and named by the policy's @id where it has one (one mistake is
    often reported once per action it applies to)."""
    messages = (f"[{ids.get(error.policy_id) or error.policy_id}] {_NOISE.sub('', error.error)}" for error in errors)
    unique = list(dict.fromkeys(messages))
    shown = "; ".join(unique[:_MAX_MESSAGES])
    return shown if len(unique) <= _MAX_MESSAGES else f"{shown} (and {len(unique) - _MAX_MESSAGES} more)"
