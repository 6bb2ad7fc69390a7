"""Keyword libraries (data files in ``risk/keywords/``) and their Aho-Corasick matcher.

A library file groups terms as ``category -> level -> [terms]``. Chinese terms match as substrings; terms
written in ASCII match case-insensitively and only as whole words ("pay" is not found in "display").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from operator import itemgetter

import ahocorasick
import yaml

from finrpa.exceptions import ConfigurationError
from finrpa.risk.amounts import UNMODELLED_WORDS, YUAN, any_case, label_forms, literal_trie, not_plain_yuan_words
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
    confirm step that names no operation itself — and that pass also answers the probe (:meth:`scan_page`), so
    such a step reads the page body once: the probe's words that start with a non-ASCII character are in its
    automaton, and the few that start with an ASCII character (``ascii_probe``) are looked for only in a page
    that holds an ASCII letter or the non-letter they start with ($).
    """

    action: KeywordMatcher
    injection: KeywordMatcher
    page: PageMatcher
    probe: PageProbe
    ascii_probe: PageProbe
    ascii_heads: frozenset[str]  # the non-letters an ASCII-led probe word starts with

    @classmethod
    def build(cls, entries: tuple[KeywordEntry, ...], currency_codes: tuple[str, ...] = ()) -> DomainMatchers:
        injection = [entry for entry in entries if entry.category is Category.INJECTION]
        words = probe_words(
            {form for entry in injection if entry.term for form in _case_forms(entry.term)},
            not_plain_yuan_words(currency_codes),
        )
        ascii_led = {kind: {form for form in forms if form[0].isascii()} for kind, forms in words.items()}
        return cls(
            action=KeywordMatcher(entries),
            injection=KeywordMatcher(injection, cased_variants=True),
            page=PageMatcher(
                (entry for entry in entries if entry.category in HIGH_IMPACT),
                {kind: {form for form in forms if not form[0].isascii()} for kind, forms in words.items()},
            ),
            probe=PageProbe(words, label_forms()),
            ascii_probe=PageProbe(ascii_led),
            ascii_heads=frozenset(form[0] for forms in ascii_led.values() for form in forms if not form[0].isalpha()),
        )

    def scan_page(self, text: str, *, probe: bool = True) -> tuple[PageScan, ProbeResult | None]:
        """The operations named in a page body and, with ``probe``, what :meth:`PageProbe.find` answers, from one
        automaton pass (plus the ASCII-led probe words in a page that may hold one). The answer's ``injection``
        may also be set for a talk-down phrase in odd mixed case, which the injection matcher then does not find;
        the rest is exactly the probe's."""
        scan = self.page.read(text)
        if not probe:
            return scan, None
        seen = set(scan.kinds)
        currencies: frozenset[str] | None = frozenset()
        if scan.letters or any(head in text for head in self.ascii_heads):
            ascii_led, currencies, _ = self.ascii_probe.read(text)
            seen |= ascii_led
        if "other_currency" in scan.kinds:  # the automaton reads them in lower case: which, as written, is not known
            currencies = None
        return scan, self.probe.result(seen, currencies)


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """What a page body holds of the rare things stage 1 looks for in every page."""

    injection: bool  # a talk-down phrase as the injection matcher reads it (before its whole-word check)
    unmodelled: bool  # one of UNMODELLED_WORDS in any case: its amounts need the exact scan
    full_width: bool  # a full-width digit: its amounts need normalising first
    plain_yuan: bool = False  # none of not_plain_yuan_words: every amount is a number right before 元 (or none)
    yuan_plain: bool = False  # none of those written with 元: every 元 amount is a number right before it
    currencies: frozenset[str] | None = None  # the other currency words it holds as written (None: not read)
    labels: tuple[tuple[int, int], ...] | None = None  # the money-label pattern's matches (None: not read)


def probe_words(injection_forms: Set[str], not_plain_yuan: Set[str]) -> dict[str, frozenset[str]]:
    """The words the page probe looks for, by kind (each in every case it is looked for in)."""
    return {
        "injection": frozenset(injection_forms),
        "unmodelled": frozenset(any_case(UNMODELLED_WORDS)),
        "full_width": frozenset(chr(code) for code in range(0xFF10, 0xFF1A)),
        "yuan_written": frozenset(word for word in not_plain_yuan if YUAN in word),
        "other_currency": frozenset(word for word in not_plain_yuan if YUAN not in word),
    }


class PageProbe:
    """One regex pass over a page body for talk-down phrases, money labels, full-width digits and
    :func:`not_plain_yuan_words` (a page whose amounts are all plain numbers before 元 is read by the fastest pattern).

    pyahocorasick takes ~8 ns a character whatever it finds; the regex engine skips ahead to the characters
    that start one of these rare words (~2 ns). Matches do not overlap, so a match of one kind can hide a
    word of another kind that starts inside it ("金额" in a talk-down phrase): a kind not seen is looked for
    again, alone, in the spans matched — the answer is exactly whether the page holds one.
    """

    def __init__(self, by_kind: Mapping[str, Set[str]], labels: Set[str] = frozenset()) -> None:
        self._kinds: dict[str, frozenset[str]] = {}
        for kind, forms in by_kind.items():
            for form in forms:
                self._kinds[form] = self._kinds.get(form, frozenset()) | {kind}
        # Which currency words (other than those with 元) a page holds, for the amount passes to look for only
        # those: a word matched holds the ones inside it, and one that starts inside it and ends after it is
        # looked for at that offset (``_overhangs``), when the character after the match can continue one.
        currencies = frozenset(by_kind.get("other_currency", ()))
        self._inside = {
            form: frozenset(part for part in _substrings(form) if part in currencies) for form in self._kinds
        }
        following: dict[str, set[str]] = {}  # a proper start of a currency word -> the characters that follow it
        for word in currencies:
            for length in range(1, len(word)):
                following.setdefault(word[:length], set()).add(word[length])
        self._overhangs = {
            form: (offsets, frozenset().union(*(following[form[offset:]] for offset in offsets)))
            for form in self._kinds
            if (offsets := tuple(offset for offset in range(1, len(form)) if form[offset:] in following))
        }
        # Money labels (words of the unmodelled kind): a label matched is where the label pattern matches, unless
        # a label starts inside another word matched (then the label pattern is left to find them).
        self._labels = frozenset(labels)
        # The kinds (and "label") of word that can start inside each word, or at its start as a shorter one: only
        # a match of such a word is looked into again ("USD", matched fifty times on a page, hides none).
        word_kinds: dict[str, set[str]] = {}
        start_kinds: dict[str, set[str]] = {}
        for kind, group in {**by_kind, "label": self._labels}.items():
            for word in group:
                word_kinds.setdefault(word, set()).add(kind)
                for length in range(1, len(word) + 1):
                    start_kinds.setdefault(word[:length], set()).add(kind)
        self._may_hide = {
            form: hides for form in self._kinds if (hides := _hidden_kinds(form, word_kinds, start_kinds))
        }
        # Factored by first character: the regex engine skips ahead to the characters that start one, and
        # there tries the few words that start with it.
        self._pattern = re.compile(literal_trie(set(self._kinds))) if self._kinds else None
        # Each kind's words (and the labels, and the currency words) alone, for a look into a match that may hide
        # one: compiled on first use (most pages never need one; compiling them all took most of the build).
        self._groups = {kind: frozenset(forms) for kind, forms in by_kind.items() if forms}
        self._alone_words = {**self._groups, "label": self._labels, "currency": currencies}
        self._compiled: dict[str, tuple[re.Pattern[str], int]] = {}

    def find(self, text: str) -> ProbeResult:
        seen, currencies, labels = self.read(text)
        return self.result(seen, currencies, labels)

    def read(self, text: str) -> tuple[set[str], frozenset[str] | None, tuple[tuple[int, int], ...] | None]:
        """The kinds of word ``text`` holds, the currency words of :attr:`ProbeResult.currencies` and the label
        spans of :attr:`ProbeResult.labels` (None when the pass stopped early, every kind being seen)."""
        seen: set[str] = set()
        if self._pattern is None:
            return seen, frozenset(), ()
        spans: list[tuple[tuple[int, int], frozenset[str]]] = []  # the matches that may hide a word
        currencies: set[str] = set()
        labels: list[tuple[int, int]] = []
        kinds, inside, overhangs, label_forms, may_hide = (
            self._kinds, self._inside, self._overhangs, self._labels, self._may_hide
        )  # fmt: skip
        stopped = False
        for match in self._pattern.finditer(text):
            word = match.group()
            seen |= kinds[word]
            if word in may_hide:
                spans.append((match.span(), may_hide[word]))
            if word in label_forms:
                labels.append(match.span())
            currencies |= inside[word]
            if word in overhangs and text[match.end() : match.end() + 1] in overhangs[word][1]:
                currencies |= self._overhanging(text, match.start(), overhangs[word][0])
            if len(seen) == len(self._groups):
                stopped = True
                break
        for kind in self._groups:
            if kind not in seen and any(
                kind in hides and self._starts_within(*self._alone(kind), text, span) for span, hides in spans
            ):
                seen.add(kind)
        if stopped:
            return seen, None, None
        return seen, frozenset(currencies), self._label_spans(text, spans, labels)

    def _label_spans(
        self, text: str, spans: list[tuple[tuple[int, int], frozenset[str]]], labels: list[tuple[int, int]]
    ) -> tuple[tuple[int, int], ...] | None:
        label_set = set(labels)
        hidden = any(
            self._starts_within(*self._alone("label"), text, span)
            for span, hides in spans
            if "label" in hides and span not in label_set
        )  # a label inside another word (not a label): the probe's matches are not the label pattern's
        return None if hidden else tuple(labels)

    def _alone(self, key: str) -> tuple[re.Pattern[str], int]:
        compiled = self._compiled.get(key)
        if compiled is None:
            words = self._alone_words[key]
            compiled = self._compiled[key] = (re.compile(literal_trie(words)), max(map(len, words)))
        return compiled

    def _overhanging(self, text: str, start: int, offsets: tuple[int, ...]) -> set[str]:
        currency = self._alone("currency")[0]
        found: set[str] = set()
        for offset in offsets:
            match = currency.match(text, start + offset)
            if match is not None:  # the longest there; the shorter ones there are inside it
                found |= self._inside[match.group()]
        return found

    def result(
        self,
        seen: Set[str],
        currencies: frozenset[str] | None = None,
        labels: tuple[tuple[int, int], ...] | None = None,
    ) -> ProbeResult:
        """The answer for a page that holds words of the kinds ``seen`` (and the ``currencies`` and ``labels``, if
        known)."""
        yuan_plain = "yuan_written" in self._groups and "yuan_written" not in seen
        plain_yuan = yuan_plain and "other_currency" not in seen
        known = currencies if yuan_plain and not plain_yuan else None
        unmodelled = "unmodelled" in seen
        return ProbeResult(
            "injection" in seen,
            unmodelled,
            "full_width" in seen,
            plain_yuan,
            yuan_plain,
            known,
            labels if unmodelled else None,
        )

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

    def __init__(self, entries: Iterable[KeywordEntry], flags: Mapping[str, Set[str]] | None = None) -> None:
        by_term = _group_by_term(entries)
        self._automaton = ahocorasick.Automaton()
        # What a word found stands for: the entries of its term, and the kinds of flag (substrings reported
        # only as "one was found", by kind) it is. The automaton holds each word's index in ``_values``: the
        # first end of each is recorded under that small int, with no call per match.
        values: dict[str, tuple[tuple[KeywordEntry, ...], frozenset[str]]] = {}
        for term, group in by_term.items():
            if not group[0].whole_word:
                values[page_bytes(term)] = (group, _NO_KINDS)
        for kind, forms in (flags or {}).items():
            for form in forms:
                group, kinds = values.get(page_bytes(form), ((), _NO_KINDS))
                values[page_bytes(form)] = (group, kinds | {kind})
        self._values = list(values.values())
        self._found_words = list(values)
        for index, word in enumerate(values):
            self._automaton.add_word(word, index)
        # Number characters no word holds are taken out of the page before the automaton reads it (a statement
        # page is two-fifths digits and separators): the automaton then says which words the page may hold —
        # taking characters out can join two words' halves — and where each first ends is read in the page itself.
        held = set("".join(values))
        self._skippable = bytes(byte for byte in b"0123456789,.-:/" if chr(byte) not in held)
        self._has_automaton = len(self._automaton) > 0
        if self._has_automaton:
            self._automaton.make_automaton()
        words = {term: group for term, group in by_term.items() if group[0].whole_word}
        self._words = re.compile(_word_trie(set(words)), re.ASCII) if words else None
        # A whole word found also holds the shorter terms it starts with that end at a word boundary in it.
        word_index = {term: len(self._values) + number for number, term in enumerate(words)}
        self._values += [(group, _NO_KINDS) for group in words.values()]
        self._word_groups = {
            term: [
                (word_index[prefix], len(prefix))
                for prefix in words
                if term.startswith(prefix) and _ends_word(term, len(prefix))
            ]
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
        the first occurrence ends), the kinds of flag found, and whether the page holds an ASCII letter."""
        raw = encoded.encode("latin-1")
        return self._find(encoded, raw, raw.translate(None, _NOT_LETTERS))

    def read(self, text: str) -> PageScan:
        """:meth:`find` of ``page_bytes(text)``, encoding the page once (and lower-casing it only if it holds an
        ASCII letter)."""
        raw = text.encode("utf-8", "surrogatepass")
        letters = raw.translate(None, _NOT_LETTERS)
        if letters:
            raw, letters = raw.lower(), letters.lower()
        return self._find(raw.decode("latin-1"), raw, letters)

    def _find(self, encoded: str, raw: bytes, letters: bytes) -> PageScan:
        first_end: dict[int, int] = {}
        if self._has_automaton:
            short = raw.translate(None, self._skippable).decode("latin-1") if self._skippable else encoded
            words = self._found_words
            located = []
            for index in {index for _, index in self._automaton.iter(short)}:
                start = encoded.find(words[index])
                if start >= 0:  # not two halves joined
                    located.append((start + len(words[index]) - 1, -len(words[index]), index))
            for end, _, index in sorted(located):  # ending together: the longest first, as the automaton says
                first_end[index] = end
        if self._words is not None and self._may_hold_words(letters):
            self._find_words(encoded, first_end)
        values = self._values
        ordered = [values[index] for index, _ in sorted(first_end.items(), key=itemgetter(1))]
        kinds = frozenset().union(*(kinds for _, kinds in ordered if kinds))
        return PageScan([entry for group, _ in ordered for entry in group], kinds, bool(letters))

    def _may_hold_words(self, letters: bytes) -> bool:
        if not self._prefilter:
            return True
        if len(letters) > _PREFILTER_LETTERS:  # a page with much Latin text: the regex pass is the cheaper test
            return True
        return any(word in letters for word in self._word_letters)

    def _find_words(self, encoded: str, first_end: dict[int, int]) -> None:
        assert self._words is not None
        search = self._words.search
        position = 0
        while (match := search(encoded, position)) is not None:
            start = match.start()
            position = start + 1
            if start and _is_word_char(encoded[start - 1]):
                continue
            for index, length in self._word_groups[match.group()]:
                end = start + length - 1
                if index not in first_end or first_end[index] > end:
                    first_end[index] = end


def _hidden_kinds(word: str, word_kinds: Mapping[str, Set[str]], start_kinds: Mapping[str, Set[str]]) -> frozenset[str]:
    """The kinds of the words other than ``word`` that can start inside ``word`` (and end in it or after it), or at
    its start as shorter ones; ``start_kinds``: the kinds of the words each string starts."""
    kinds: set[str] = set()
    for offset in range(len(word)):
        tail = word[offset:]
        if offset:
            kinds |= start_kinds.get(tail, set())
        for length in range(1, len(tail) + (1 if offset else 0)):
            kinds |= word_kinds.get(tail[:length], set())
    return frozenset(kinds)


def _substrings(word: str) -> set[str]:
    return {word[start:end] for start in range(len(word)) for end in range(start + 1, len(word) + 1)}


def _case_forms(term: str) -> set[str]:
    if not term.isascii():
        return {term}
    return {term, term.upper(), term.capitalize(), term.title()}


@dataclass(frozen=True, slots=True)
class PageScan:
    entries: list[KeywordEntry]
    kinds: frozenset[str] = frozenset()  # the kinds of flag found
    letters: bool = False  # the page holds an ASCII letter


_NO_KINDS: frozenset[str] = frozenset()


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
