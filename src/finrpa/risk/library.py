"""Keyword libraries (data files in ``risk/keywords/``) and their Aho-Corasick matcher.

A library file groups terms as ``category -> level -> [terms]``. Chinese terms match as substrings; terms
written in ASCII match case-insensitively and only as whole words ("pay" is not found in "display").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

import ahocorasick
import yaml

from finrpa.exceptions import ConfigurationError
from finrpa.risk.categories import HIGH_IMPACT, Category
from finrpa.risk.config import RiskConfig
from finrpa.risk.levels import RiskLevel

SHIPPED_DOMAINS = ("common", "bank", "insurance", "securities")
BUSINESS_DOMAINS = ("bank", "insurance", "securities")


@dataclass(frozen=True, slots=True)
class KeywordEntry:
    term: str
    level: RiskLevel
    category: Category
    domain: str

    @property
    def whole_word(self) -> bool:
        return self.term.isascii()


def _entries_from_document(document: object, source: str) -> Iterator[KeywordEntry]:
    if not isinstance(document, dict) or not isinstance(document.get("keywords"), dict):
        raise ConfigurationError(f"Keyword library {source} must have a 'keywords' mapping of categories.")
    domain = str(document.get("domain", source))
    for category_name, by_level in document["keywords"].items():
        try:
            category = Category(category_name)
            levels = {RiskLevel(level): terms for level, terms in by_level.items()}
        except ValueError as exc:
            raise ConfigurationError(f"Keyword library {source}: {exc}. Use the names in Category/RiskLevel.") from exc
        for level, terms in levels.items():
            for term in terms:
                yield KeywordEntry(str(term).strip().lower(), level, category, domain)


@cache
def shipped_entries(domain: str) -> tuple[KeywordEntry, ...]:
    """The keywords of one shipped library file."""
    text = files("finrpa.risk").joinpath("keywords", f"{domain}.yaml").read_text(encoding="utf-8")
    return tuple(_entries_from_document(yaml.safe_load(text), f"{domain}.yaml"))


def library_entries(domain: str, config: RiskConfig) -> tuple[KeywordEntry, ...]:
    """Common keywords plus the domain's (all domains for "common" or an unknown domain), per the config."""
    domains = ("common", domain) if domain in BUSINESS_DOMAINS else SHIPPED_DOMAINS
    entries = [entry for name in dict.fromkeys(domains) for entry in shipped_entries(name)]
    entries += [
        KeywordEntry(extra.term.strip().lower(), extra.level, extra.category, extra.domain)
        for extra in config.extra_keywords
        if extra.domain in domains or extra.domain == "common"
    ]
    disabled = {term.lower() for term in config.disabled_keywords}
    return tuple(entry for entry in entries if entry.term not in disabled)


@dataclass(frozen=True)
class DomainMatchers:
    """The automata stage 1 uses for one domain.

    ``action`` holds every keyword and reads the action's own short texts. ``page`` reads a page body, once,
    for what it can change: operations a confirm dialog may name and talk-down phrases.
    """

    action: KeywordMatcher
    page: PageMatcher

    @classmethod
    def build(cls, entries: tuple[KeywordEntry, ...]) -> DomainMatchers:
        return cls(
            action=KeywordMatcher(entries),
            page=PageMatcher(
                entry for entry in entries if entry.category in HIGH_IMPACT or entry.category is Category.INJECTION
            ),
        )


class KeywordMatcher:
    """One Aho-Corasick automaton over a set of keywords for short texts (lower-cased before matching); finds
    each distinct keyword once per text."""

    def __init__(self, entries: Iterable[KeywordEntry]) -> None:
        by_term = _group_by_term(entries)
        self._automaton = ahocorasick.Automaton()
        for term, group in by_term.items():
            self._automaton.add_word(term, (len(term), group))
        self.size = len(by_term)
        if self.size:
            self._automaton.make_automaton()

    def find(self, text: str) -> list[KeywordEntry]:
        """Every keyword entry present in ``text``, in order of first appearance."""
        if not self.size or not text:
            return []
        text = text.lower()
        seen: dict[KeywordEntry, None] = {}
        for end, (length, group) in self._automaton.iter(text):
            if group[0] in seen:
                continue
            if group[0].whole_word and not _is_whole_word(text, end - length + 1, end):
                continue
            for entry in group:
                seen[entry] = None
        return list(seen)


class PageMatcher:
    """The keywords read in a page body (tens of KB), matched in one pass over its UTF-8 bytes.

    pyahocorasick looks a character up among a trie node's children one by one, and a library of a thousand
    Chinese terms gives the root node hundreds of children: every character of a page that starts no term
    paid for all of them. Over UTF-8 (viewed as Latin-1 text, one character per byte) a Chinese character is
    three steps through nodes with few children: the root holds a handful of lead bytes and the first
    letters of the ASCII terms. The page is lower-cased in ASCII only (``bytes.lower``), so ASCII terms match
    in any case; Chinese terms match as substrings, ASCII terms as whole words, as in :class:`KeywordMatcher`.
    A UTF-8 match can only start at a character boundary, so no match is found that the text does not hold.
    """

    def __init__(self, entries: Iterable[KeywordEntry]) -> None:
        by_term = _group_by_term(entries)
        self._automaton = ahocorasick.Automaton()
        for term, group in by_term.items():
            key = page_bytes(term)
            self._automaton.add_word(key, (len(key), group, group[0].whole_word))
        self.size = len(by_term)
        if self.size:
            self._automaton.make_automaton()

    def find(self, encoded: str) -> list[KeywordEntry]:
        """Every keyword entry in a page given as :func:`page_bytes`, in order of first appearance."""
        if not self.size or not encoded:
            return []
        seen: dict[int, tuple[KeywordEntry, ...]] = {}
        for end, (length, group, whole_word) in self._automaton.iter(encoded):
            key = id(group)
            if key in seen or (whole_word and not _is_whole_word(encoded, end - length + 1, end)):
                continue
            seen[key] = group
        return [entry for group in seen.values() for entry in group]


def page_bytes(text: str) -> str:
    """``text`` as UTF-8 with ASCII letters lower-cased, one character per byte: what :class:`PageMatcher` reads."""
    return text.encode("utf-8", "surrogatepass").lower().decode("latin-1")


def _group_by_term(entries: Iterable[KeywordEntry]) -> dict[str, tuple[KeywordEntry, ...]]:
    by_term: dict[str, list[KeywordEntry]] = {}
    for entry in entries:
        if entry.term:
            by_term.setdefault(entry.term, []).append(entry)
    return {term: tuple(dict.fromkeys(group)) for term, group in by_term.items()}


def _is_whole_word(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end + 1] if end + 1 < len(text) else " "
    return not (_is_word_char(before) or _is_word_char(after))


def _is_word_char(char: str) -> bool:
    return char.isascii() and char.isalnum()
