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

    ``action`` holds every keyword and reads the action's own short texts; a page body is read only for what
    it can change: ``page`` (operations a confirm dialog may name) and ``injection`` (talk-down phrases).
    """

    action: KeywordMatcher
    page: KeywordMatcher
    injection: KeywordMatcher

    @classmethod
    def build(cls, entries: tuple[KeywordEntry, ...]) -> DomainMatchers:
        return cls(
            action=KeywordMatcher(entries),
            page=KeywordMatcher((entry for entry in entries if entry.category in HIGH_IMPACT), cased_variants=True),
            injection=KeywordMatcher(
                (entry for entry in entries if entry.category is Category.INJECTION), cased_variants=True
            ),
        )


class KeywordMatcher:
    """One Aho-Corasick automaton over a set of keywords; finds each distinct keyword once per text.

    Short texts are lower-cased before matching. For long page bodies, ``cased_variants=True`` adds each
    ASCII term as written in lower, upper, capitalised and title case instead, so a 50 KB page need not be
    lower-cased (which costs more than the match itself); odd mixed case like "IgNoRe" is not found there.
    """

    def __init__(self, entries: Iterable[KeywordEntry], *, cased_variants: bool = False) -> None:
        by_term: dict[str, list[KeywordEntry]] = {}
        for entry in entries:
            if entry.term:
                by_term.setdefault(entry.term, []).append(entry)
        self._lower_text = not cased_variants
        self._automaton = ahocorasick.Automaton()
        for term, group in by_term.items():
            value = (len(term), tuple(dict.fromkeys(group)))
            for form in _case_forms(term) if cased_variants else (term,):
                self._automaton.add_word(form, value)
        self.size = len(by_term)
        if self.size:
            self._automaton.make_automaton()

    def find(self, text: str) -> list[KeywordEntry]:
        """Every keyword entry present in ``text``, in order of first appearance."""
        if not self.size or not text:
            return []
        if self._lower_text:
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


def _case_forms(term: str) -> set[str]:
    if not term.isascii():
        return {term}
    return {term, term.upper(), term.capitalize(), term.title()}


def _is_whole_word(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end + 1] if end + 1 < len(text) else " "
    return not (_is_word_char(before) or _is_word_char(after))


def _is_word_char(char: str) -> bool:
    return char.isascii() and char.isalnum()
