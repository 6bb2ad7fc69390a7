"""The page keyword pass (Aho-Corasick over UTF-8 bytes for Chinese terms, a regex for whole ASCII words, skipped
when the page's letters cannot hold one) finds exactly the terms a plain reading of the page finds, in order of
where each first occurrence ends."""

from __future__ import annotations

import random
import re

import pytest

from finrpa.risk.categories import HIGH_IMPACT
from finrpa.risk.config import RiskConfig
from finrpa.risk.library import KeywordEntry, PageMatcher, library_entries, page_bytes

ENTRIES = [entry for entry in library_entries("bank", RiskConfig()) if entry.category in HIGH_IMPACT]
MATCHER = PageMatcher(ENTRIES)
TERMS = sorted({entry.term for entry in ENTRIES})
FILLER = ["余额 ", "2024-03-01 ", "1,000.00 元 ", "\n", "ID ", "No.12 ", "page ", "-", "/", "的", "RMB ", "x"]


def reference(text: str) -> dict[str, int]:
    """Each term that occurs (Chinese: anywhere, its Latin letters in any case; ASCII: a whole word in any case),
    with where it first ends."""
    lowered = text.encode().lower().decode()  # ASCII letters in lower case, as terms are written
    ends: dict[str, int] = {}
    for term in TERMS:
        if term.isascii():
            found = re.search(rf"(?<![a-z0-9]){re.escape(term)}(?![a-z0-9])", lowered)
        else:
            found = re.search(re.escape(term), lowered)
        if found is not None:
            ends[term] = found.end()
    return ends


def check(text: str, found: list[KeywordEntry]) -> None:
    ends = reference(text)
    assert {entry.term for entry in found} == set(ends), text
    assert len(found) == len({(entry.term, entry.category, entry.level) for entry in found})
    order = [ends[entry.term] for entry in found]
    assert order == sorted(order), text  # in order of where each first occurrence ends (ties in any order)


def page(rnd: random.Random, latin: int) -> str:
    parts = []
    for _ in range(rnd.randint(1, 60)):
        parts.append(rnd.choice(FILLER))
        if rnd.random() < 0.3:
            term = rnd.choice(TERMS)
            parts.append(rnd.choice([term, term.upper(), term.title(), term[:-1], "pre" + term]))
        if latin:
            parts.append("".join(rnd.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(latin)))
    return "".join(parts)


@pytest.mark.parametrize("latin", [0, 3, 80])  # 80: more letters than the prefilter reads
def test_page_pass_finds_what_a_plain_reading_finds(latin: int) -> None:
    rnd = random.Random(f"page-matcher-{latin}")
    for _ in range(300):
        text = page(rnd, latin)
        found = MATCHER.find(page_bytes(text))
        check(text, found.entries)
        assert MATCHER.read(text) == found  # encoded once, lower-cased only when it holds a letter


def test_words_split_by_spaces_or_case_are_found_and_fragments_are_not() -> None:
    found = [entry.term for entry in MATCHER.find(page_bytes("请确认 Wire Transfer")).entries]
    assert found[0] == "wire" and set(found) == {"wire", "wire transfer", "transfer"}
    assert MATCHER.find(page_bytes("display repayment prepaid")).entries == []


def test_words_joined_by_taking_digits_out_are_not_found_and_ties_list_the_longest_first() -> None:
    """The automaton reads the page without its digits and separators: halves they separated are not a word."""
    assert MATCHER.find(page_bytes("转1账 汇2,000.00款")).entries == []
    found = [entry.term for entry in MATCHER.find(page_bytes("2024-01-02 跨行转账 100 元")).entries]
    assert found[:2] == ["跨行转账", "转账"]  # both end at 账: the longer first
