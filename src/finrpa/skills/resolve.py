"""Deterministic element resolution for skills: accessible names, the synonym table, then fuzzy matching.

``resolve_element(snapshot, "开始日期", roles=FILLABLE)`` finds the one element a label means on this page, also
when the portal says 起始日期 or "From date". A tie between different elements is refused as ambiguous (the
caller may then ask site memory or an LLM, whose answer is verified like any other); nothing is guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from urllib.parse import urlsplit

import yaml
from rapidfuzz import fuzz

from finrpa.browser.snapshot import ElementInfo, PageSnapshot
from finrpa.skills.base import SkillError

FILLABLE = frozenset(
    {"textbox", "searchbox", "combobox", "spinbutton", "listbox", "checkbox", "radio", "textarea", "file"}
)
CLICKABLE = frozenset({"button", "link", "menuitem", "tab", "option", "treeitem", "gridcell", "cell"})
NAVIGABLE = frozenset({"link", "menuitem", "tab", "button", "treeitem"})

EXACT, SYNONYM, NORMALISED, CONTAINED, FUZZY_FLOOR = 100.0, 95.0, 90.0, 80.0, 85.0
_TIE_MARGIN = 2.0


class FieldNotFoundError(SkillError):
    code = "field_not_found"
    retryable = True


class AmbiguousFieldError(SkillError):
    code = "field_ambiguous"


@dataclass(frozen=True)
class Match:
    element: ElementInfo
    score: float
    how: str


@lru_cache(maxsize=1)
def synonym_groups() -> dict[str, tuple[str, ...]]:
    raw = yaml.safe_load((files("finrpa.skills") / "synonyms.yaml").read_text(encoding="utf-8"))
    groups = {name: tuple(str(label) for label in labels) for name, labels in raw.items()}
    owner: dict[str, str] = {}
    for name, labels in groups.items():
        for label in labels:
            key = normalise(label)
            if key in owner and owner[key] != name:
                raise ValueError(f"synonyms.yaml: {label!r} is in both {owner[key]!r} and {name!r}")
            owner[key] = name
    return groups


@lru_cache(maxsize=1)
def _group_of() -> dict[str, str]:
    return {normalise(label): name for name, labels in synonym_groups().items() for label in labels}


def synonyms_of(label: str) -> tuple[str, ...]:
    """The label itself, then every other label of its synonym group."""
    group = _group_of().get(normalise(label))
    others = synonym_groups()[group] if group else ()
    return (label, *(other for other in others if other != label))


_SPACE_BETWEEN_CJK = re.compile(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")
_DECORATION = re.compile(r"[\s:：*＊]+$|^[\s*＊]+")


def normalise(text: str) -> str:
    """Case, spacing, trailing colons and required-field stars do not change what a label means."""
    text = _SPACE_BETWEEN_CJK.sub("", text.strip())
    text = _DECORATION.sub("", text)
    return " ".join(text.split()).casefold()


def score_element(element: ElementInfo, variants: tuple[str, ...]) -> tuple[float, str]:
    names = [name for name in (element.name, element.label) if name]
    if not names:
        return 0.0, ""
    best, how = 0.0, ""
    for position, variant in enumerate(variants):
        wanted = normalise(variant)
        if not wanted:
            continue
        for name in names:
            candidate = normalise(name)
            if name == variant:
                score, kind = (EXACT if position == 0 else SYNONYM), "exact" if position == 0 else "synonym"
            elif candidate == wanted:
                score, kind = NORMALISED - (0 if position == 0 else 1), "normalised"
            elif len(wanted) >= 2 and candidate.startswith(wanted) and len(candidate) <= len(wanted) + 6:
                score, kind = CONTAINED - (0 if position == 0 else 1), "contained"
            else:
                ratio = fuzz.ratio(candidate, wanted)
                score, kind = (ratio * 0.8, "fuzzy") if ratio >= FUZZY_FLOOR else (0.0, "")
            if score > best:
                best, how = score, kind
    return best, how


def rank(snapshot: PageSnapshot, label: str, roles: frozenset[str] | None = None) -> list[Match]:
    variants = synonyms_of(label)
    matches = []
    for element in snapshot.elements:
        if not element.visible or (roles is not None and element.role not in roles):
            continue
        score, how = score_element(element, variants)
        if score > 0:
            matches.append(Match(element, score, how))
    return sorted(matches, key=lambda match: -match.score)


def resolve_element(
    snapshot: PageSnapshot, label: str, roles: frozenset[str] | None = None, *, prefer_enabled: bool = True
) -> ElementInfo:
    """The one element ``label`` means on this page; raises FieldNotFoundError or AmbiguousFieldError."""
    matches = rank(snapshot, label, roles)
    if prefer_enabled and any(not match.element.disabled for match in matches):
        matches = [match for match in matches if not match.element.disabled]
    if not matches:
        nearby = ", ".join(sorted({e.name for e in snapshot.elements if e.name and e.visible})[:12])
        raise FieldNotFoundError(f"No element labelled {label!r} (or a synonym) on {snapshot.url}; seen: {nearby}.")
    top = matches[0]
    rivals = [m for m in matches[1:] if top.score - m.score < _TIE_MARGIN and _distinct(m.element, top.element)]
    if rivals:
        described = "; ".join(f"{m.element.role} {m.element.name!r} in {m.element.frame_path}" for m in [top, *rivals])
        raise AmbiguousFieldError(f"{label!r} matches more than one element on {snapshot.url}: {described}.")
    return top.element


def _distinct(first: ElementInfo, second: ElementInfo) -> bool:
    """Two links to the same page (a menu entry and a shortcut tile, or one with a preset query) lead to the
    same place: not a real ambiguity. Anything else with the same label is."""
    if first.ref == second.ref:
        return False
    same_link = first.role == second.role == "link" and bool(first.href) and _path(first.href) == _path(second.href)
    return not same_link


def _path(href: str | None) -> str:
    """A link's destination page: the address without query or fragment (presets do not change the page)."""
    return urlsplit(href or "")._replace(query="", fragment="").geturl()
