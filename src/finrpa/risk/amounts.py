"""Money amounts in every form a portal or a form value writes them, converted to CNY by the FX table.

Recognised: 1,234.56 / 1234567 / 1.2万 / 3亿 / 150万元 / 1.5M / 200K / 2 million; currency signs and codes before
or after (¥ ￥ 元 RMB CNY 人民币 $ US$ USD 美元 HK$ HKD 港币 € EUR 欧元 and every code in the FX table); Chinese
numerals (壹佰伍拾万元整, 一百五十万元); full-width digits (１５０万). A bare number counts as money only when it
carries a currency, follows a money label (金额, amount, total …) or is the value of a field named like one.

Speed: one regex finds the rare anchors (currency words and signs, money labels) and only the few characters
around each anchor are parsed, so a 50 KB page full of dates and account numbers costs little.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from itertools import compress

import ahocorasick

from finrpa.risk.numerals import (
    CHINESE_DIGITS,
    CHINESE_NUMERAL_CHARS,
    normalize_digits,
    parse_chinese_fraction,
    parse_chinese_numeral,
)

_CURRENCY_WORDS: dict[str, str] = {
    "人民币": "CNY", "元": "CNY", "圆": "CNY", "圓": "CNY", "块": "CNY", "¥": "CNY", "￥": "CNY", "rmb": "CNY",
    "美元": "USD", "美金": "USD", "us$": "USD", "$": "USD", "dollar": "USD", "dollars": "USD",
    "港币": "HKD", "港元": "HKD", "hk$": "HKD",
    "欧元": "EUR", "€": "EUR",
    "英镑": "GBP", "£": "GBP",
    "日元": "JPY",
}  # fmt: skip
YUAN = "元"


def not_plain_yuan_words(codes: tuple[str, ...]) -> set[str]:
    """What a text without which writes its amounts (if any) as Arabic numbers right before 元: every currency
    word or sign but 元, and 元 after a scale or a Chinese numeral (150万元, 壹佰元), as the scan reads those (up
    to two whitespace characters between); letters in any case."""
    spaces = ["", *" \t\n\r\f\v"]
    scaled = {f"{scale}{space}{YUAN}" for scale in _SCALES for space in spaces}
    chinese = {f"{numeral}{one}{two}{YUAN}" for numeral in CHINESE_NUMERAL_CHARS for one in spaces for two in spaces}
    others = {word.lower() for word in [*_CURRENCY_WORDS, *codes]} - {YUAN}
    return any_case(others | scaled | chinese)


# Written only after the number ("150万元", "200 dollars"); every other marker may also precede it.
_SUFFIX_ONLY = frozenset(
    {"元", "圆", "圓", "块", "dollar", "dollars", "美元", "美金", "港元", "港币", "欧元", "英镑", "日元"}
)
_SCALES: dict[str, Decimal] = {
    "万亿": Decimal(10) ** 12, "千万": Decimal(10) ** 7, "百万": Decimal(10) ** 6, "十万": Decimal(10) ** 5,
    "万": Decimal(10) ** 4, "亿": Decimal(10) ** 8, "千": Decimal(10) ** 3,
    "k": Decimal(10) ** 3, "thousand": Decimal(10) ** 3,
    "m": Decimal(10) ** 6, "mn": Decimal(10) ** 6, "million": Decimal(10) ** 6,
    "b": Decimal(10) ** 9, "bn": Decimal(10) ** 9, "billion": Decimal(10) ** 9,
}  # fmt: skip
_LABEL_WORDS = (
    "金额", "额度", "价款", "本金", "合计", "总计", "总额", "总价", "应付", "实付", "amount", "total", "sum",
)  # fmt: skip
_AMOUNT_KEYS = ("金额", "数额", "额度", "价款", "本金", "总额", "总价", "amount", "sum", "total", "money")
_CURRENCY_KEYS = ("币种", "货币", "currency", "ccy")
_QUANTITY_KEYS = ("委托数量", "数量", "股数", "份额", "quantity", "qty", "shares", "volume")
_PRICE_KEYS = ("委托价格", "价格", "单价", "price")
_WINDOW = 24  # characters looked at before a suffix currency, or for a label before a number

_NUMBER = r"(?P<num>[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?)"
_SCALE = r"(?:\s?(?P<scale>万亿|千万|百万|十万|万|亿|千|(?:million|billion|thousand|mn|bn|k|m|b)(?![a-z])))?"
_FLAGS = re.IGNORECASE | re.ASCII
_NUMBER_ONLY = re.compile(_NUMBER)
_AFTER_PREFIX = re.compile(rf"\s?{_NUMBER}(?![0-9]){_SCALE}", _FLAGS)
_AFTER_LABEL = re.compile(rf"[^0-9\n]{{0,6}}?{_NUMBER}(?![0-9]){_SCALE}", _FLAGS)
_BARE = re.compile(rf"(?<![0-9.,]){_NUMBER}(?![0-9]){_SCALE}", _FLAGS)
# Matched on the reversed text, right before a suffix currency: "1,500,000.00 元" read backwards.
_REVERSED_SUFFIXED = re.compile(
    r"\s?(?P<scale>亿万|万千|万百|万十|万|亿|千|noillim|noillib|dnasuoht|nm|nb|k|m|b)?\s?(?P<num>[0-9][0-9,.]*)",
    _FLAGS,
)
_CHINESE_BEFORE = re.compile(rf"(?:(?P<pre>人民币|RMB|CNY)\s?)?(?P<cn>[{CHINESE_NUMERAL_CHARS}]+)$")
_DIGIT_CLASS = "".join(CHINESE_DIGITS)
_CHINESE_FRACTION = re.compile(rf"(?:(?P<jiao>[{_DIGIT_CLASS}])角)?(?:(?P<fen>[{_DIGIT_CLASS}])分)?")
_CHINESE_SUFFIXES = frozenset({"元", "圆", "圓", "美元", "港元", "港币", "欧元"})
_LABEL_REACH = 12  # a money label counts for a number that starts at most this many characters after it


@dataclass(frozen=True, slots=True)
class AmountMention:
    """A sum of money found in text. ``currency`` is an ISO code; ``labelled`` means a money label preceded it."""

    text: str
    value: Decimal
    currency: str
    labelled: bool = False


@lru_cache(maxsize=16)
def _anchors(codes: tuple[str, ...]) -> ahocorasick.Automaton:
    """Currency words and signs, and money labels, lower-cased, in one Aho-Corasick automaton."""
    automaton = ahocorasick.Automaton()
    for word in [*_CURRENCY_WORDS, *(code.lower() for code in codes)]:
        automaton.add_word(word.lower(), ("currency", word.lower()))
    for word in _LABEL_WORDS:
        automaton.add_word(word, ("label", word))
    automaton.make_automaton()
    return automaton


def _currency(marker: str | None, codes: tuple[str, ...]) -> str | None:
    if not marker:
        return None
    lowered = marker.lower()
    if lowered in _CURRENCY_WORDS:
        return _CURRENCY_WORDS[lowered]
    return marker.upper() if marker.upper() in codes else None


def _arabic_value(number: str, scale: str | None) -> Decimal | None:
    try:
        value = Decimal(number.replace(",", ""))
    except InvalidOperation:
        return None
    return value * _SCALES[scale.lower()] if scale else value


@dataclass
class _Scan:
    """One text being scanned: mentions keyed by where their number starts (found once even if two anchors
    reach it), and where the last money label ended."""

    text: str
    lowered: str
    codes: tuple[str, ...]
    found: dict[int, AmountMention] = field(default_factory=dict)
    label_end: int = -(10**9)
    _reversed: str | None = None

    @property
    def reversed(self) -> str:
        if self._reversed is None:
            self._reversed = self.lowered[::-1]
        return self._reversed

    def labelled(self, start: int) -> bool:
        return 0 <= start - self.label_end <= _LABEL_REACH

    def add(self, start: int, span: tuple[int, int], value: Decimal | None, currency: str) -> None:
        """Record the number starting at ``start``; ``span`` is the text shown (with its currency)."""
        if value is None:
            return
        known = self.found.get(start)
        labelled = self.labelled(start)
        if known is None:
            self.found[start] = AmountMention(self.text[span[0] : span[1]].strip(), value, currency, labelled)
        elif labelled and not known.labelled:
            self.found[start] = AmountMention(known.text, known.value, known.currency, True)


def find_amounts(
    text: str, codes: tuple[str, ...], *, assume_money: bool = False, default_currency: str = "CNY"
) -> list[AmountMention]:
    """Every sum of money in ``text``. With ``assume_money`` a bare number counts (a field named 金额)."""
    found = _scan(normalize_digits(text), codes, assume_money=assume_money, default_currency=default_currency)
    return [found[start] for start in sorted(found)]


def _scan(
    text: str, codes: tuple[str, ...], *, assume_money: bool = False, default_currency: str = "CNY"
) -> dict[int, AmountMention]:
    """The amounts of a (normalised) text keyed by where their number starts."""
    scan = _Scan(text, _same_length_lower(text), codes)
    for end, (kind, word) in _anchors(codes).iter(scan.lowered):
        start = end - len(word) + 1
        if kind == "label":
            scan.label_end = end + 1
            _after_label(scan, start, end + 1, default_currency)
        else:
            _around_currency(scan, start, end + 1, word)
    if assume_money:
        for match in _BARE.finditer(text):
            value = _arabic_value(match["num"], match["scale"])
            scan.add(match.start("num"), match.span(), value, default_currency)
    return scan.found


def _same_length_lower(text: str) -> str:
    lowered = text.lower()
    # A few non-ASCII characters change length when lower-cased; positions must stay aligned.
    return lowered if len(lowered) == len(text) else "".join(char.lower()[0] for char in text)


def _around_currency(scan: _Scan, start: int, end: int, marker: str) -> None:
    currency = _currency(marker, scan.codes) or "CNY"
    if not _suffixed_number(scan, start, end, currency) and marker in _CHINESE_SUFFIXES:
        _chinese_before(scan, start, end, currency)
    if marker not in _SUFFIX_ONLY:
        after = _AFTER_PREFIX.match(scan.text, end)
        if after is not None:
            value = _arabic_value(after["num"], after["scale"])
            scan.add(after.start("num"), (start, after.end()), value, currency)


def _suffixed_number(scan: _Scan, start: int, end: int, currency: str) -> bool:
    """A number written right before the currency ("1,500,000.00 元", "150万元", "200,000 USD")."""
    backwards = _REVERSED_SUFFIXED.match(scan.reversed, len(scan.text) - start)
    if backwards is None:
        return False
    number = backwards["num"][::-1]
    number_start = start - (backwards.end() - (len(scan.text) - start))
    if not _NUMBER_ONLY.fullmatch(number) or (number_start and scan.text[number_start - 1] in "0123456789.,-/:"):
        return False
    scale = backwards["scale"][::-1] if backwards["scale"] else None
    scan.add(number_start, (number_start, end), _arabic_value(number, scale), currency)
    return True


def _after_label(scan: _Scan, label_start: int, label_end: int, default_currency: str) -> None:
    after = _AFTER_LABEL.match(scan.text, label_end)
    if after is None:
        return
    gap = scan.lowered[label_end : after.start("num")]
    marker = next((word for _, (kind, word) in _anchors(scan.codes).iter(gap) if kind == "currency"), None)
    if marker is None:
        tail = scan.lowered[after.end() : after.end() + 8].lstrip()
        marker = next(
            (
                word
                for end, (kind, word) in _anchors(scan.codes).iter(tail)
                if kind == "currency" and end + 1 == len(word)
            ),
            None,
        )
    currency = _currency(marker, scan.codes) or default_currency
    value = _arabic_value(after["num"], after["scale"])
    scan.add(after.start("num"), (label_start, after.end()), value, currency)


def _chinese_before(scan: _Scan, start: int, end: int, currency: str) -> None:
    match = _CHINESE_BEFORE.search(scan.text, max(0, start - 24), start)
    integer = parse_chinese_numeral(match["cn"]) if match else None
    if match is None or integer is None:
        return
    fraction = _CHINESE_FRACTION.match(scan.text, end)
    value = Decimal(integer)
    stop = end
    if fraction is not None:
        value += parse_chinese_fraction(fraction["jiao"], fraction["fen"])
        stop = fraction.end()
    currency = _currency(match["pre"], scan.codes) or currency
    scan.found[match.start("cn")] = AmountMention(
        scan.text[match.start() : stop], value, currency, scan.labelled(match.start())
    )


def _key_matches(key: str, names: tuple[str, ...]) -> bool:
    lowered = key.lower()
    return any(name in lowered for name in names)


def is_money_label(text: str) -> bool:
    """Whether a field label (an action's target) names a sum of money, e.g. 付款金额 or Amount."""
    return _key_matches(text, _AMOUNT_KEYS) and not _key_matches(text, _PRICE_KEYS)


def amounts_in_values(
    values: dict[str, str], codes: tuple[str, ...], *, money_target: bool = False
) -> list[AmountMention]:
    """Amounts in an action's values: fields named like money (or typed into a money field) count bare."""
    marker = next((value.strip() for key, value in values.items() if _key_matches(key, _CURRENCY_KEYS)), None)
    currency = _currency(marker, codes) or "CNY"
    found: list[AmountMention] = []
    for key, value in values.items():
        money_field = money_target or is_money_label(key)
        found += find_amounts(value, codes, assume_money=money_field, default_currency=currency)
    notional = _order_notional(values, currency)
    return [*found, notional] if notional else found


def _order_notional(values: dict[str, str], currency: str) -> AmountMention | None:
    """A securities order's value: quantity times price, when the form has both."""
    quantity = _first_number(values, _QUANTITY_KEYS)
    price = _first_number(values, _PRICE_KEYS)
    if quantity is None or price is None:
        return None
    return AmountMention(f"{quantity} x {price}", quantity * price, currency, labelled=True)


def _first_number(values: dict[str, str], names: tuple[str, ...]) -> Decimal | None:
    for key, value in values.items():
        if _key_matches(key, names):
            cleaned = normalize_digits(value).replace(",", "").strip()
            match = re.match(r"\d+(?:\.\d+)?", cleaned)
            if match:
                scale = cleaned[match.end() :].strip()[:1]
                return _arabic_value(match.group(), scale if scale in ("万", "亿", "千") else None)
    return None


# --- The largest amount of a long text, in bulk -------------------------------------------------------------
#
# A confirm step on a 50 KB statement page needs one amount of the ~1,000 there: the largest (in CNY). Parsing
# each with the code above costs microseconds of Python apiece. Here regex passes (C) list every Arabic amount
# beside a currency — number-then-currency on the reversed text, currency-then-number on the text — and the
# values are computed column-wise with C-level builtins (join, split, map(float)); only the winner is parsed
# again, exactly, by the scan above on the characters around it, and must agree. What the passes do not model
# — money labels (which make an amount "labelled" and preferred), Chinese numerals before a currency,
# characters whose lower case is ASCII — sends the text to the exact scan, so the answer is always the one
# ``max`` over :func:`find_amounts` gives.

PriceFn = Callable[[Decimal, str], "Decimal | None"]
_REL_TOLERANCE = 1e-9  # float values this close to the maximum are compared again as Decimals
_CONTEXT = 40  # characters either side of a winner parsed again exactly
_NUMBER_BODY = _NUMBER.replace("(?P<num>", "(?:")
_DIGIT_SHAPE = str.maketrans("0123456789", "dddddddddd")


def literal_trie(words: Set[str]) -> str:
    """A regex matching any of ``words``, longest first, factored by first character so that the regex engine
    can skip ahead to the characters that start one."""
    heads: dict[str, set[str]] = {}
    for word in words:
        heads.setdefault(word[0], set()).add(word[1:])
    branches = []
    for head in sorted(heads):
        rests = heads[head]
        longer = {rest for rest in rests if rest}
        tail = f"(?:{literal_trie(longer)})" if longer else ""  # grouped: the alternation inside binds loosest
        if longer and "" in rests:
            tail += "?"
        branches.append(re.escape(head) + tail)
    return "|".join(branches)


def any_case(words: Iterable[str]) -> set[str]:
    """Every spelling of ``words`` with ASCII letters in either case (literals keep the regex fast to skip)."""
    spellings: set[str] = set()
    for word in words:
        forms = [""]
        for char in word:
            cases = {char.lower(), char.upper()} if char.isascii() and char.isalpha() else {char}
            forms = [form + case for form in forms for case in sorted(cases)]
        spellings.update(forms)
    return spellings


@dataclass(frozen=True)
class _BulkPatterns:
    backwards: re.Pattern[str]  # on the reversed text, see _bulk_patterns
    quick: re.Pattern[str]  # ``backwards`` without its ``after`` group (which costs a third of the pass)
    quick_other: re.Pattern[str]  # ``quick`` for the currencies not written with 元 (元 amounts: ``plain``)
    plain: re.Pattern[str]  # on the reversed text: only the number before each 元 (see plain_yuan_forms)
    mark: re.Pattern[str]  # what ``after`` matches, tried at one number only
    rest: re.Pattern[str]  # parses the currency-and-scale part of a suffixed match
    prefixed: re.Pattern[str]
    currency_by_marker: dict[str, str]  # marker as written in lower case -> ISO code
    prefix_markers: frozenset[str]  # lower case, reversed


@lru_cache(maxsize=16)
def _bulk_patterns(codes: tuple[str, ...]) -> _BulkPatterns:
    """``backwards`` finds on the reversed text every currency (``rest``: with the scale and spaces after it,
    i.e. before it in the text), then the number written before it (``num``; ``after`` is set when that number
    follows a prefix currency, which reads it first, or - / :, which make it no amount), or else a Chinese
    numeral written right before it (``chinese``: only the exact scan reads those). Its first group starts with
    a literal in every alternative, so the regex engine skips ahead to where one starts."""
    markers = [*_CURRENCY_WORDS, *(code.lower() for code in codes)]
    prefix = [marker for marker in markers if marker not in _SUFFIX_ONLY]
    reversed_markers = literal_trie(any_case([marker[::-1] for marker in markers]))
    reversed_other = literal_trie(any_case([marker[::-1] for marker in markers if not marker.endswith(YUAN)]))
    reversed_prefix = literal_trie(any_case([marker[::-1] for marker in prefix]))
    mark = rf"[-/:]|\s?(?:{reversed_prefix})"
    backwards = _suffixed_pattern(reversed_markers, rf"(?=(?P<after>{mark})?)")
    return _BulkPatterns(
        backwards,
        _suffixed_pattern(reversed_markers),
        _suffixed_pattern(reversed_other),
        re.compile(rf"{YUAN}\s?\s?([0-9][0-9,.]*+)", re.ASCII),
        re.compile(mark, re.ASCII),
        re.compile(rf"(?P<marker>{reversed_markers})\s?(?P<scale>{_reversed_scales()})?\s?", re.ASCII),
        _prefixed_pattern(literal_trie(any_case(prefix))),
        {marker: _currency(marker, codes) or "CNY" for marker in markers},
        frozenset(marker[::-1] for marker in prefix),
    )


@lru_cache(maxsize=1)
def _reversed_scales() -> str:
    """The scale words (万, k, million …) reversed, in any case, as a regex alternation."""
    return literal_trie(any_case([name[::-1] for name in _SCALES]))


def _suffixed_pattern(reversed_markers: str, after: str = "") -> re.Pattern[str]:
    return re.compile(
        rf"(?P<rest>(?:{reversed_markers})\s?(?:{_reversed_scales()})?\s?)"
        rf"(?:(?P<num>[0-9][0-9,.]*+){after}|(?P<chinese>[{CHINESE_NUMERAL_CHARS}]))?",
        re.ASCII,
    )


def _prefixed_pattern(markers: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?P<whole>(?P<marker>{markers})\s?(?P<num>{_NUMBER_BODY})(?![0-9])"
        rf"(?:\s?(?P<scale>(?i:万亿|千万|百万|十万|万|亿|千|(?:million|billion|thousand|mn|bn|k|m|b)(?![a-z]))))?)",
        re.ASCII,
    )


@lru_cache(maxsize=64)
def _written_patterns(written: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """``quick_other`` and ``prefixed`` for only the currency words ``written`` (exactly as written; none with 元):
    on a page known to hold no others they find the same, and a single word is a literal the regex engine finds
    with a character search instead of testing every character against the first characters of all of them.
    Compiled once per set of words (a page names one or two)."""
    prefix = {word for word in written if word.lower() not in _SUFFIX_ONLY}
    return (
        _suffixed_pattern(literal_trie({word[::-1] for word in written})),
        _prefixed_pattern(literal_trie(prefix)) if prefix else None,
    )


# What only the exact scan reads: money labels and characters whose lower case is ASCII (İ, the Kelvin sign).
# Found in any case; a caller that scans the text anyway (the page keyword pass) can look for them there.
UNMODELLED_WORDS = (*_LABEL_WORDS, "\u0130", "\u212a")


@lru_cache(maxsize=1)
def _unmodelled_pattern() -> re.Pattern[str]:
    # Every alternative starts with a literal, so the regex engine skips ahead to the characters that start one.
    return re.compile(literal_trie(any_case(list(UNMODELLED_WORDS))))


def _unmodelled(text: str) -> bool:
    return _unmodelled_pattern().search(text) is not None


def largest_amount(
    text: str,
    codes: tuple[str, ...],
    to_cny: PriceFn,
    *,
    unmodelled: bool | None = None,
    full_width: bool | None = None,
    plain_yuan: bool = False,
    yuan_plain: bool = False,
    currencies: frozenset[str] | None = None,
    labels: tuple[tuple[int, int], ...] | None = None,
) -> tuple[AmountMention, Decimal] | None:
    """The amount a confirm step decides on in ``text``, with its CNY value: the largest labelled amount, else
    the largest; the first of equal ones. Amounts in a currency ``to_cny`` cannot price are left out.
    ``unmodelled``: whether ``text`` holds one of :data:`UNMODELLED_WORDS` (in any case), and ``full_width``:
    whether it holds a full-width digit, if the caller knows (a page probe reads them in one pass); and
    ``plain_yuan``: the caller knows that it holds none of :func:`not_plain_yuan_words`, ``yuan_plain``: none of
    those written with 元 (150万元, 壹佰元, 美元); ``currencies``: then the other currency words it holds, exactly as
    written, if the caller knows; ``labels``: where the matches of the money-label pattern are, if it knows."""
    if full_width is None or full_width:
        text = normalize_digits(text)
        currencies = labels = None  # read in the text as it was (normalising writes ￥ as ¥)
    if unmodelled is None:
        unmodelled = _unmodelled(text)
    if text and unmodelled and not any(char in text for char in _ODD_LOWER_CASE):
        # Money labels only: the labelled amounts are read exactly around each label; if one is priced it wins.
        labelled = _largest_labelled(text, codes, to_cny, labels)
        if labelled is not None:
            return labelled
        unmodelled = False
    if text and not unmodelled:
        fast = _largest_in_bulk(
            text, codes, to_cny, plain_yuan=plain_yuan, yuan_plain=yuan_plain, currencies=currencies
        )
        if fast is not None:
            return fast[0]
    return _largest_of(find_amounts(text, codes), to_cny)


_ODD_LOWER_CASE = ("\u0130", "\u212a")  # the two UNMODELLED_WORDS that are characters, not money labels
_LABEL_BEFORE = 24  # characters read before a label: an anchor there can still change what follows it
_NUMBER_CHARS = frozenset("0123456789,.")
_AFTER_NUMBER = 24  # characters read after a number near a label: spaces, a scale and a currency word


@lru_cache(maxsize=1)
def _label_pattern() -> re.Pattern[str]:
    return re.compile(literal_trie(label_forms()))


def label_forms() -> set[str]:
    """The money labels in every case: what :func:`_largest_labelled` looks for."""
    return any_case(list(_LABEL_WORDS))


def _largest_labelled(
    text: str, codes: tuple[str, ...], to_cny: PriceFn, labels: tuple[tuple[int, int], ...] | None = None
) -> tuple[AmountMention, Decimal] | None:
    """The largest priced labelled amount (first of equals), or None when no label labels a priced amount.

    A number is labelled when it starts within :data:`_LABEL_REACH` characters after a label, so the exact scan
    of a window around each label (from :data:`_LABEL_BEFORE` characters before it to past the number that may
    start in its reach) finds every labelled amount with the same text and value as the scan of the whole text:
    everything that decides them lies inside. Overlapping windows are read as one; a statement page with a
    金额 column header costs one short window instead of the exact scan of the page. ``labels``: the spans of the
    label pattern's matches, if the caller found them."""
    windows: list[list[int]] = []
    length = len(text)
    spans = labels if labels is not None else [match.span() for match in _label_pattern().finditer(text)]
    for label_start, label_end in spans:
        start = max(0, label_start - _LABEL_BEFORE)
        end = label_end + _LABEL_REACH + 8  # + 8: a label the regex passed over inside this one ("金额度")
        while end < length and text[end] in _NUMBER_CHARS:
            end += 1
        end += _AFTER_NUMBER
        if windows and start <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], end)
        else:
            windows.append([start, end])
    best: tuple[AmountMention, Decimal] | None = None
    for start, end in windows:
        found = _scan(text[start:end], codes)
        for position in sorted(found):
            mention = found[position]
            cny = to_cny(mention.value, mention.currency) if mention.labelled else None
            if cny is not None and (best is None or cny > best[1]):
                best = (mention, cny)
    return best


def _largest_of(mentions: list[AmountMention], to_cny: PriceFn) -> tuple[AmountMention, Decimal] | None:
    priced = [(mention, cny) for mention in mentions if (cny := to_cny(mention.value, mention.currency)) is not None]
    labelled = [pair for pair in priced if pair[0].labelled]
    return max(labelled or priced, key=lambda pair: pair[1], default=None)


@dataclass(frozen=True, slots=True)
class _Candidate:
    start: int  # where the amount's number (suffixed) or currency (prefixed) starts in the text
    end: int  # where the amount ends
    value: float  # in CNY, as found in bulk


def _largest_in_bulk(
    text: str,
    codes: tuple[str, ...],
    to_cny: PriceFn,
    *,
    plain_yuan: bool = False,
    yuan_plain: bool = False,
    currencies: frozenset[str] | None = None,
) -> tuple[tuple[AmountMention, Decimal] | None] | None:
    """``(answer,)``, or None when the text holds something only the exact scan reads. ``plain_yuan``: the text
    holds none of :func:`not_plain_yuan_words`; ``yuan_plain``: none of those written with 元 (other currencies
    may be there), and ``currencies`` are those, exactly as written, if known."""
    patterns = _bulk_patterns(codes)
    backwards = text[::-1]
    if plain_yuan or yuan_plain:
        split = _yuan_apart(text, codes, backwards, patterns, to_cny, others=not plain_yuan, currencies=currencies)
        if split is not None:
            return split
    suffixed = _suffixed_pass(text, backwards, patterns, to_cny, marks=False)
    if suffixed is not None and _after_mark(text, backwards, patterns, suffixed[0]):
        # rare: a winner follows - / : or a prefix currency; read that of every number and choose again
        suffixed = _suffixed_pass(text, backwards, patterns, to_cny, marks=True)
    if suffixed is None:
        return None
    candidates, read_prefixed = suffixed
    if read_prefixed:
        candidates = candidates + _prefixed_candidates(text, patterns, to_cny)
    return _closest_winner(text, codes, to_cny, candidates)


def _yuan_apart(
    text: str,
    codes: tuple[str, ...],
    backwards: str,
    patterns: _BulkPatterns,
    to_cny: PriceFn,
    *,
    others: bool,
    currencies: frozenset[str] | None = None,
) -> tuple[tuple[AmountMention, Decimal] | None] | None:
    """The answer of a text whose 元 amounts are all plain numbers before 元: those are listed by the one-group
    ``plain`` pass (a literal the regex engine finds with a character search) and, with ``others``, the other
    currencies by ``quick_other``, whose matches are few. The two passes find what ``quick`` finds: no match of
    either holds where a match of the other starts. Given the ``currencies`` the text holds, those passes look for
    only them. None (the general pass decides) when a winner follows - / : or a prefix currency, or a number is
    not plainly one."""
    plain = _plain_yuan_candidates(text, backwards, patterns, to_cny)
    if plain is None or _after_mark(text, backwards, patterns, plain):
        return None
    if not others:
        return _exact_winner(text, codes, to_cny, plain) if plain else (None,)
    suffixed_pattern, prefixed_pattern = (
        (patterns.quick_other, patterns.prefixed) if currencies is None else _written_patterns(currencies)
    )
    suffixed = _suffixed_pass(text, backwards, patterns, to_cny, marks=False, pattern=suffixed_pattern)
    if suffixed is None or _after_mark(text, backwards, patterns, suffixed[0]):
        return None
    candidates, read_prefixed = suffixed
    candidates = plain + candidates
    if read_prefixed and prefixed_pattern is not None:
        candidates += _prefixed_candidates(text, patterns, to_cny, prefixed_pattern)
    return _closest_winner(text, codes, to_cny, candidates)


def _after_mark(text: str, backwards: str, patterns: _BulkPatterns, candidates: list[_Candidate]) -> bool:
    return any(patterns.mark.match(backwards, len(text) - candidate.start) for candidate in candidates)


def _closest_winner(
    text: str, codes: tuple[str, ...], to_cny: PriceFn, candidates: list[_Candidate]
) -> tuple[tuple[AmountMention, Decimal] | None] | None:
    if not candidates:
        return (None,)
    best = max(candidate.value for candidate in candidates)
    close = [candidate for candidate in candidates if candidate.value >= best * (1 - _REL_TOLERANCE)]
    return _exact_winner(text, codes, to_cny, close)


def _suffixed_pass(
    text: str,
    backwards: str,
    patterns: _BulkPatterns,
    to_cny: PriceFn,
    *,
    marks: bool,
    pattern: re.Pattern[str] | None = None,
) -> tuple[list[_Candidate], bool] | None:
    """The largest amounts written before their currency, and whether a currency found may also precede a number;
    None when a Chinese numeral precedes a currency. ``marks``: read whether each number follows - / : or a prefix
    currency (else every number counts, and the caller checks the winners). ``pattern``: instead of ``quick``, one
    for fewer currencies."""
    found = (patterns.backwards if marks else pattern or patterns.quick).findall(backwards)
    if not found:
        return [], False
    columns = list(zip(*found, strict=True))
    chinese = columns.pop()
    if any(chinese):
        return None
    rests, numbers = columns[0], columns[1]
    after = columns[2] if marks else None
    factors = _factors(set(rests), patterns, to_cny)
    if factors is None:
        return None
    read_prefixed = any(prefixed for _, prefixed in factors.values())
    if not all(numbers):  # a currency with no number before it
        if any(_letter_scale(rest, patterns) for rest, number in set(zip(rests, numbers, strict=True)) if not number):
            return None  # "100RMB元": the B read as 元's scale ends RMB, whose number the exact scan reads
        keep = list(map(bool, numbers))
        rests, numbers = tuple(compress(rests, keep)), tuple(compress(numbers, keep))
        after = None if after is None else tuple(compress(after, keep))
    if not rests:
        return [], read_prefixed
    return _suffixed_candidates(text, backwards, factors, rests, numbers, after), read_prefixed


def _letter_scale(rest: str, patterns: _BulkPatterns) -> bool:
    parsed = patterns.rest.fullmatch(rest)
    return parsed is not None and bool(parsed["scale"]) and parsed["scale"].isascii()


def _factors(rests: set[str], patterns: _BulkPatterns, to_cny: PriceFn) -> dict[str, tuple[float | None, bool]] | None:
    """For each distinct currency-and-scale part of a suffixed match: what its number is multiplied by to give
    CNY (None: no FX rate), and whether its currency may also precede a number (read by the second pass)."""
    factors: dict[str, tuple[float | None, bool]] = {}
    for rest in rests:
        parsed = patterns.rest.fullmatch(rest)
        if parsed is None:
            return None
        marker = parsed["marker"].lower()
        scale = parsed["scale"][::-1].lower() if parsed["scale"] else None
        rate = to_cny(Decimal(1), patterns.currency_by_marker[marker[::-1]])
        factor = None if rate is None else float(rate) * (float(_SCALES[scale]) if scale else 1.0)
        factors[rest] = (factor, marker in patterns.prefix_markers)
    return factors


def _suffixed_candidates(
    text: str,
    backwards: str,
    factors: dict[str, tuple[float | None, bool]],
    rests: tuple[str, ...],
    numbers: tuple[str, ...],
    after: tuple[str, ...] | None,
) -> list[_Candidate]:
    joined = "\x00".join(numbers)[::-1]  # the numbers as written, last match first
    shapes = joined.translate(_DIGIT_SHAPE).split("\x00")  # 1,234.56 -> d,ddd.dd: a page writes few shapes
    distinct = set(shapes)
    invalid = {shape for shape in distinct if _NUMBER_ONLY.fullmatch(shape.replace("d", "0")) is None}
    by_rest = {rest: factor for rest, (factor, _) in factors.items()}
    if after is None and not invalid and not _LEADING_ZERO.search("\x00" + joined):
        return _widest_by_currency(text, backwards, joined, shapes, distinct, rests, by_rest)
    marks = after or ("",) * len(numbers)
    if invalid:  # rare: "1,23 元" is no amount (and "5. 元" none either)
        marks = tuple("x" if shape in invalid else mark for shape, mark in zip(reversed(shapes), marks, strict=True))
        joined = "\x00".join("0" if mark else number for number, mark in zip(numbers, marks, strict=True))[::-1]
    values = list(map(float, joined.replace(",", "").split("\x00")))
    values.reverse()  # back to the order of the matches
    multipliers = list(map(by_rest.__getitem__, rests))
    if any(marks):
        # Rare: a number right after a prefix currency (read there) or after - / : (not an amount).
        multipliers = [None if excluded else factor for factor, excluded in zip(multipliers, marks, strict=True)]
    length = len(text)
    candidates = []
    for index, value in _top(values, multipliers):
        whole = rests[index] + numbers[index]
        position = backwards.rfind(whole)  # the first of equal amounts in the text
        candidates.append(_Candidate(length - position - len(whole), length - position, value))
    return candidates


_LEADING_ZERO = re.compile(r"\x000[0-9]")  # 0123: its digit count says nothing of its size (literal: fast to skip)


def _widest_by_currency(
    text: str,
    backwards: str,
    joined: str,
    shapes: list[str],
    distinct: set[str],
    rests: tuple[str, ...],
    by_rest: dict[str, float | None],
) -> list[_Candidate]:
    """The candidates of :func:`_widest_candidates` for each currency-and-scale factor (a page holds few), pooled:
    those within the tolerance of the largest. Amounts whose currency has no FX rate are left out."""
    groups: dict[float, set[str]] = {}
    for rest in set(rests):
        factor = by_rest[rest]
        if factor is not None:
            groups.setdefault(factor, set()).add(rest)
    written = joined.split("\x00")
    backwards_rests = rests[::-1]  # in the order of ``written`` and ``shapes``: last match first
    length = len(text)
    candidates: list[_Candidate] = []
    for factor, group in groups.items():

        def locate(number: str, group: set[str] = group) -> tuple[int, int]:
            # the first of equal amounts in the text: the last in the reversed text, whichever currency form follows
            reversed_number = number[::-1]
            position, whole = max((backwards.rfind(rest + reversed_number), rest + reversed_number) for rest in group)
            return length - position - len(whole), length - position

        if len(groups) == 1 and len(group) == len(by_rest):
            candidates += _widest_candidates(written, shapes, distinct, factor, locate)
        else:
            mask = list(map(group.__contains__, backwards_rests))
            in_group = list(compress(shapes, mask))
            candidates += _widest_candidates(list(compress(written, mask)), in_group, set(in_group), factor, locate)
    if not candidates:
        return []
    floor = max(candidate.value for candidate in candidates) * (1 - _REL_TOLERANCE)
    return [candidate for candidate in candidates if candidate.value >= floor]


def _plain_yuan_candidates(
    text: str, backwards: str, patterns: _BulkPatterns, to_cny: PriceFn
) -> list[_Candidate] | None:
    """The largest amounts of a text that holds none of :func:`not_plain_yuan_words`: every amount is a number
    right before 元 (up to two whitespace characters between), so one pass lists just the numbers. None when a
    number is not plainly one (1,23 or 0123): the general pass reads those."""
    numbers = patterns.plain.findall(backwards)
    rate = to_cny(Decimal(1), "CNY")
    if not numbers or rate is None:
        return [] if rate is not None else None
    joined = "\x00".join(numbers)[::-1]
    shapes = joined.translate(_DIGIT_SHAPE).split("\x00")
    distinct = set(shapes)
    if _LEADING_ZERO.search("\x00" + joined) or any(
        _NUMBER_ONLY.fullmatch(shape.replace("d", "0")) is None for shape in distinct
    ):
        return None

    def locate(number: str) -> tuple[int, int]:
        # the first of equal amounts in the text: a longer number ending in the same digits is not this one
        pattern = re.compile(re.escape(number) + rf"\s?\s?{YUAN}", re.ASCII)
        position = 0
        while (found := pattern.search(text, position)) is not None:
            if found.start() == 0 or text[found.start() - 1] not in _NUMBER_CHARS:
                return found.start(), found.end()
            position = found.start() + 1
        raise AssertionError(f"{number} {YUAN} was found in the reversed text")  # pragma: no cover

    return _widest_candidates(joined.split("\x00"), shapes, distinct, float(rate), locate)


def _widest_candidates(
    written: list[str],
    shapes: list[str],
    distinct: set[str],
    factor: float,
    locate: Callable[[str], tuple[int, int]],
) -> list[_Candidate]:
    """All numbers priced alike (one currency and scale) and none with a leading zero: the largest has the most
    integer digits, and among numbers of one shape (d,ddd.dd) the text order of the digits is the order of the
    values. So the largest of each widest shape, found by C-level ``max`` over strings, are the only candidates;
    only they are converted to float, and ``locate`` gives where the first of each is in the text."""
    widest = max(map(_integer_digits, distinct))
    tops = [max(compress(written, map(shape.__eq__, shapes))) for shape in distinct if _integer_digits(shape) == widest]
    values = [float(number.replace(",", "")) * factor for number in tops]
    floor = max(values) * (1 - _REL_TOLERANCE)
    return [_Candidate(*locate(number), value) for number, value in zip(tops, values, strict=True) if value >= floor]


def _integer_digits(shape: str) -> int:
    return shape.split(".", 1)[0].count("d")


def _prefixed_candidates(
    text: str, patterns: _BulkPatterns, to_cny: PriceFn, pattern: re.Pattern[str] | None = None
) -> list[_Candidate]:
    found = (pattern or patterns.prefixed).findall(text)
    if not found:
        return []
    wholes, markers, numbers, scales = zip(*found, strict=True)
    factors: dict[tuple[str, str], float | None] = {}
    for marker, scale in set(zip(markers, scales, strict=True)):
        rate = to_cny(Decimal(1), patterns.currency_by_marker[marker.lower()])
        factors[marker, scale] = None if rate is None else float(rate) * float(_SCALES[scale.lower()] if scale else 1)
    values = list(map(float, "\x00".join(numbers).replace(",", "").split("\x00")))
    multipliers = list(map(factors.__getitem__, zip(markers, scales, strict=True)))
    candidates = []
    for index, value in _top(values, multipliers):
        position = text.find(wholes[index])  # the first of equal amounts in the text
        candidates.append(_Candidate(position, position + len(wholes[index]), value))
    return candidates


def _top(values: list[float], multipliers: list[float | None]) -> list[tuple[int, float]]:
    """(index, product) of the products within the tolerance of the largest; a None multiplier leaves the value
    out. Usually one: found with two C-level passes of ``max``."""
    if None in multipliers:
        products = [value * factor if factor is not None else -math.inf for value, factor in zip(
            values, multipliers, strict=True)]  # fmt: skip
    else:
        products = list(map(float.__mul__, values, multipliers))  # type: ignore[arg-type]
    best = max(products, default=-math.inf)
    if best == -math.inf:
        return []
    floor = best * (1 - _REL_TOLERANCE)
    index = products.index(best)
    products[index] = -math.inf
    if max(products) < floor:
        return [(index, best)]
    products[index] = best
    return [(index, value) for index, value in enumerate(products) if value >= floor]


def _exact_winner(
    text: str, codes: tuple[str, ...], to_cny: PriceFn, candidates: list[_Candidate]
) -> tuple[tuple[AmountMention, Decimal] | None] | None:
    """Each candidate parsed again by the exact scan in a window around it; the largest, first of equals.
    None (use the exact scan of the whole text) if a re-parse does not confirm the value found in bulk."""
    best: tuple[AmountMention, Decimal] | None = None
    for candidate in sorted(candidates, key=lambda candidate: candidate.start):
        window_start = max(0, candidate.start - _CONTEXT)
        found = _scan(text[window_start : candidate.end + _CONTEXT], codes)
        mention = next(
            (found[start] for start in sorted(found) if window_start + start >= candidate.start),
            None,
        )
        cny = None if mention is None else to_cny(mention.value, mention.currency)
        if mention is None or cny is None or abs(float(cny) - candidate.value) > _REL_TOLERANCE * candidate.value:
            return None
        if best is None or cny > best[1]:
            best = (mention, cny)
    return (best,)
