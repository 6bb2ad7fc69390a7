"""DOM cleaning and hashing for the action cache: a pure function over HTML text.

Two renders of the same page should clean to the same text even though ids, classes, styles, CSRF tokens,
timestamps and typed values differ. A handful of whole-document regular expressions (no parser dependency,
no per-tag Python callbacks except for id-like values) keeps it fast: see ``bench/bench_dom_hash.py``.
"""

from __future__ import annotations

import hashlib
import re

_BLOCKS = re.compile(
    r"<!--.*?-->|<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>|<!doctype[^>]*>", re.S | re.I
)
# Chromium serialises tags and attribute names in lower case with double-quoted values, which lets
# literal-prefixed patterns scan quickly.
_INPUT_OR_META = re.compile(r"<(?:input|meta)\b[^>]*>")
_CSRF_WORDS = ("csrf", "xsrf", "_token", "authenticity", "requestverification", "__viewstate", "__eventvalidation")
_DROP_ATTRS = re.compile(
    r' (?:class|style|value|checked|selected|nonce|integrity|data-reactid|data-reactroot|data-testid'
    r'|data-test-id|data-v-[\w-]*|data-react[\w-]*|_ngcontent[\w-]*|_nghost[\w-]*|ng-reflect[\w-]*)'
    r'(?:="[^"]*"|=\'[^\']*\')?(?=[ />])'
)
_ID_LIKE = re.compile(
    r' (id|for|name|href|src|action|aria-(?:labelledby|describedby|controls|owns|activedescendant))="([^"]*)"'
)
_MAYBE_VOLATILE = re.compile(r"\d{3}|[0-9a-f]{6}|[\w-]{20}")
_VOLATILE = re.compile(r"\d{3,}|(?<![a-z])[0-9a-f]{6,}(?![a-z])|[A-Za-z0-9_-]{20,}")
_LONG_CONTENT = re.compile(r"""(<meta\b[^>]*?)\scontent=("[^"]{24,}"|'[^']{24,}')""")
_TIMESTAMP = re.compile(
    r"(?=\d)(?<!\d)(?:\d{4}[-/年.]\d{1,2}[-/月.]\d{1,2}日?"
    r"(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|\d{1,2}:\d{2}:\d{2}|1\d{9}(?:\d{3})?)(?!\d)"
)


def _without_csrf(match: re.Match[str]) -> str:
    tag = match.group(0)
    lowered = tag.lower()
    return "" if any(word in lowered for word in _CSRF_WORDS) else tag


def _id_like(match: re.Match[str]) -> str:
    value = match.group(2)
    if _MAYBE_VOLATILE.search(value) is None:
        return match.group(0)
    return f' {match.group(1)}="{_VOLATILE.sub("#", value)}"'


def clean_dom(html: str) -> str:
    """HTML reduced to what identifies the page's structure and wording across renders."""
    text = _BLOCKS.sub("", html)
    text = _INPUT_OR_META.sub(_without_csrf, text)
    text = _DROP_ATTRS.sub("", text)
    text = _LONG_CONTENT.sub(r"\1", text)
    text = _ID_LIKE.sub(_id_like, text)
    text = _TIMESTAMP.sub("", text)
    return " ".join(text.split()).replace("> <", "><").replace(" >", ">")


def dom_hash(html: str) -> str:
    """SHA-256 (hex) of :func:`clean_dom` of ``html``."""
    return hashlib.sha256(clean_dom(html).encode("utf-8")).hexdigest()
