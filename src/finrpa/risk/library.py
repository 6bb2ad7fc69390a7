"""Keyword libraries (data files in ``risk/keywords/``) and their Aho-Corasick matcher.

A library file groups terms as ``category -> level -> [terms]``. Chinese terms match as substrings; terms
written in ASCII match case-insensitively and only as whole words ("pay" is not found in "display").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Set
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

import ahocorasick
import yaml

from finrpa.exceptions import ConfigurationError
from finrpa.risk.amounts import UNMODELLED_WORDS, YUAN, any_case, literal_trie, not_plain_yuan_words
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

    ``action`` holds every keyword and reads the action's own short texts. A page body is read for what it
    can change: ``probe`` (one regex pass for the rare things: talk-down phrases, money labels, full-width
    digits, amounts not written as plain numbers before 元) for every action, and ``injection`` (which
    talk-down phrases) only when the probe saw one; ``page`` (operations a confirm dialog may name) only for a
    confirm step that names no operation itself.
    """

    action: KeywordMatcher
    injection: KeywordMatcher
    page: PageMatcher
    probe: PageProbe

    @classmethod
    def build(cls, entries: tuple[KeywordEntry, ...], currency_codes: tuple[str, ...] = ()) -> DomainMatchers:
        injection = [entry for entry in entries if entry.category is Category.INJECTION]
        return cls(
            action=KeywordMatcher(entries),
            injection=KeywordMatcher(injection, cased_variants=True),
            page=PageMatcher(entry for entry in entries if entry.category in HIGH_IMPACT),
            probe=PageProbe(
                {form for entry in injection if entry.term for form in _case_forms(entry.term)},
                not_plain_yuan_words(currency_codes),
            ),
        )


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """What a page body holds of the rare things stage 1 looks for in every page."""

    injection: bool  # a talk-down phrase as the injection matcher reads it (before its whole-word check)
    unmodelled: bool  # one of UNMODELLED_WORDS in any case: its amounts need the exact scan
    full_width: bool  # a full-width digit: its amounts need normalising first
    plain_yuan: bool = False  # none of not_plain_yuan_words: every amount is a number right before 元 (or none)
    yuan_plain: bool = False  # none of those written with 元: every 元 amount is a number right before it


class PageProbe:
    """One regex pass over a page body for talk-down phrases, money labels, full-width digits and
    :func:`not_plain_yuan_words` (a page whose amounts are all plain numbers before 元 is read by the fastest pattern).

    pyahocorasick takes ~8 ns a character whatever it finds; the regex engine skips ahead to the characters
    that start one of these rare words (~2 ns). Matches do not overlap, so a match of one kind can hide a
    word of another kind that starts inside it ("金额" in a talk-down phrase): a kind not seen is looked for
    again, alone, in the spans matched — the answer is exactly whether the page holds one.
    """

    def __init__(self, injection_forms: set[str], not_plain_yuan: Set[str] = frozenset()) -> None:
        by_kind = {
            "injection": injection_forms,
            "unmodelled": any_case(UNMODELLED_WORDS),
            "full_width": {chr(code) for code in range(0xFF10, 0xFF1A)},
            "yuan_written": {word for word in not_plain_yuan if YUAN in word},
            "other_currency": {word for word in not_plain_yuan if YUAN not in word},
        }
        self._kinds: dict[str, frozenset[str]] = {}
        for kind, forms in by_kind.items():
            for form in forms:
                self._kinds[form] = self._kinds.get(form, frozenset()) | {kind}
        # Factored by first character: the regex engine skips ahead to the characters that start one, and
        # there tries the few words that start with it.
        self._pattern = re.compile(literal_trie(set(self._kinds)))
        self._alone = {
            kind: (re.compile(literal_trie(forms)), max(map(len, forms))) for kind, forms in by_kind.items() if forms
        }

    def find(self, text: str) -> ProbeResult:
        seen: set[str] = set()
        spans: list[tuple[int, int]] = []
        kinds = self._kinds
        for match in self._pattern.finditer(text):
            seen |= kinds[match.group()]
            spans.append(match.span())
            if len(seen) == len(self._alone):
                break
        for kind, (alone, longest) in self._alone.items():
            if kind not in seen and any(self._starts_within(alone, longest, text, span) for span in spans):
                seen.add(kind)
        yuan_plain = "yuan_written" in self._alone and "yuan_written" not in seen
        plain_yuan = yuan_plain and "other_currency" not in seen
        return ProbeResult("injection" in seen, "unmodelled" in seen, "full_width" in seen, plain_yuan, yuan_plain)

    @staticmethod
    def _starts_within(alone: re.Pattern[str], longest: int, text: str, span: tuple[int, int]) -> bool:
        start, end = span
        found = alone.search(text, start, min(len(text), end - 1 + longest))
        return found is not None and found.start() < end


class KeywordMatcher:
    """One Aho-Corasick automaton over a set of keywords; finds each distinct keyword once per text.

    Short texts are lower-cased before matching. For long page bodies, ``cased_variants=True`` adds each
    ASCII term as written in lower, upper, capitalised and title case instead, so a 50 KB page need not be
    lower-cased (which costs more than the match itself); odd mixed case like "IgNoRe" is not found there.
    """

    def __init__(self, entries: Iterable[KeywordEntry], *, cased_variants: bool = False) -> None:
        by_term = _group_by_term(entries)
        self._lower_text = not cased_variants
        self._automaton = ahocorasick.Automaton()
        for term, group in by_term.items():
            for form in _case_forms(term) if cased_variants else (term,):
                self._automaton.add_word(form, (len(term), group))
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


class PageMatcher:
    """The keywords read in a page body (tens of KB): Chinese terms in one Aho-Corasick pass over the page's
    UTF-8 bytes, ASCII terms (whole words) with one compiled regex.

    pyahocorasick looks a character up among a trie node's children one by one, and a library of a thousand
    Chinese terms gives the root node hundreds of children: every character of a page that starts no term
    paid for all of them. Over UTF-8 (viewed as Latin-1 text, one character per byte) a Chinese character is
    three steps through nodes with few children. ASCII terms stay out of that automaton (their first letters
    would crowd its root again); the regex engine skips to the letters that start one. The page is lower-cased
    in ASCII only (``bytes.lower``), so ASCII terms match in any case. A UTF-8 match can only start at a
    character boundary, so nothing is found that the text does not hold.
    """

    def __init__(self, entries: Iterable[KeywordEntry], flags: Iterable[str] = ()) -> None:
        by_term = _group_by_term(entries)
        self._automaton = ahocorasick.Automaton()
        for flag in flags:  # substrings in any case, reported only as "one was found"
            self._automaton.add_word(page_bytes(flag.lower()), ())
        for term, group in by_term.items():
            if not group[0].whole_word:
                self._automaton.add_word(page_bytes(term), group)
        self._has_automaton = len(self._automaton) > 0
        if self._has_automaton:
            self._automaton.make_automaton()
        words = {term: group for term, group in by_term.items() if group[0].whole_word}
        self._words = re.compile(_word_trie(set(words)), re.ASCII) if words else None
        # A whole word found also holds the shorter terms it starts with that end at a word boundary in it.
        self._word_groups = {
            term: [words[prefix] for prefix in words if term.startswith(prefix) and _ends_word(term, len(prefix))]
            for term in words
        }
        # A whole word in the page leaves its letters side by side when everything but ASCII letters is taken
        # out; a mostly Chinese page keeps a few letters, and when none of the terms' letters is among them the
        # regex pass (about 3 ns a byte) is skipped.
        self._word_letters = [term.encode().translate(None, _NOT_LETTERS) for term in words]
        self._prefilter = all(self._word_letters)
        self.size = len(by_term)

    def find(self, encoded: str) -> PageScan:
        """Every keyword entry in a page given as :func:`page_bytes`, in order of first appearance (by where
        the first occurrence ends)."""
        first_end: dict[int, tuple[int, tuple[KeywordEntry, ...]]] = {}
        if self._has_automaton:
            for end, group in self._automaton.iter(encoded):
                if id(group) not in first_end:
                    first_end[id(group)] = (end, group)
        if self._words is not None and self._may_hold_words(encoded):
            self._find_words(encoded, first_end)
        ordered = sorted(first_end.values(), key=lambda pair: pair[0])
        return PageScan([entry for _, group in ordered for entry in group])

    def _may_hold_words(self, encoded: str) -> bool:
        if not self._prefilter:
            return True
        letters = encoded.encode("latin-1").translate(None, _NOT_LETTERS)
        if len(letters) > _PREFILTER_LETTERS:  # a page with much Latin text: the regex pass is the cheaper test
            return True
        return any(word in letters for word in self._word_letters)

    def _find_words(self, encoded: str, first_end: dict[int, tuple[int, tuple[KeywordEntry, ...]]]) -> None:
        assert self._words is not None
        search = self._words.search
        position = 0
        while (match := search(encoded, position)) is not None:
            start = match.start()
            position = start + 1
            if start and _is_word_char(encoded[start - 1]):
                continue
            for group in self._word_groups[match.group()]:
                end = start + len(group[0].term) - 1
                if id(group) not in first_end or first_end[id(group)][0] > end:
                    first_end[id(group)] = (end, group)


def _case_forms(term: str) -> set[str]:
    if not term.isascii():
        return {term}
    return {term, term.upper(), term.capitalize(), term.title()}


@dataclass(frozen=True, slots=True)
class PageScan:
    entries: list[KeywordEntry]


_NOT_LETTERS = bytes(byte for byte in range(256) if not (65 <= byte <= 90 or 97 <= byte <= 122))
_PREFILTER_LETTERS = 2048


def _word_trie(words: set[str]) -> str:
    """A regex for the longest of ``words`` that ends at a word boundary, factored by first character."""
    heads: dict[str, set[str]] = {}
    for word in words:
        heads.setdefault(word[0], set()).add(word[1:])
    branches = []
    for head in sorted(heads):
        rests = heads[head]
        longer = {rest for rest in rests if rest}
        options = [f"(?:{_word_trie(longer)})"] if longer else []
        if "" in rests:
            options.append("(?![A-Za-z0-9])")
        branches.append(re.escape(head) + (f"(?:{'|'.join(options)})" if len(options) > 1 else options[0]))
    return "|".join(branches)


def _ends_word(term: str, length: int) -> bool:
    return length == len(term) or not _is_word_char(term[length])


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
