"""Money amounts in every form a portal or a form value writes them, converted to CNY by the FX table.

Recognised: 1,234.56 / 1234567 / 1.2万 / 3亿 / 150万元 / 1.5M / 200K / 2 million; currency signs and codes before
or after (¥ ￥ 元 RMB CNY 人民币 $ US$ USD 美元 HK$ HKD 港币 € EUR 欧元 and every code in the FX table); Chinese
numerals (壹佰伍拾万元整, 一百五十万元); full-width digits (１５０万). A bare number counts as money only when it
carries a currency, follows a money label (金额, amount, total …) or is the value of a field named like one.

Speed: one regex finds the rare anchors (currency words and signs, money labels) and only the few characters
around each anchor are parsed, so a 50 KB page full of dates and account numbers costs little.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache

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
        marker = next((word for end, (kind, word) in _anchors(scan.codes).iter(tail)
                       if kind == "currency" and end + 1 == len(word)), None)
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
# each with the code above costs microseconds of Python apiece. Here two regex passes (C) find every Arabic
# amount beside a currency (number-then-currency on the reversed text, currency-then-number on the text), and
# the values are computed column-wise with C-level builtins (join, split, map(float)); only the winner is then
# parsed again, exactly, by :func:`find_amounts` on the few characters around it. Whatever the passes do not
# model — money labels (which make an amount "labelled" and preferred), Chinese numerals before a currency,
# characters whose lower case is ASCII — sends the text to the exact scan, so the answer is always the one
# ``max`` over :func:`find_amounts` gives.

PriceFn = Callable[[Decimal, str], "Decimal | None"]
_NOT_MODELLED = re.compile("[\u0130\u212a]")  # İ and the Kelvin sign lower-case to ASCII
_REL_TOLERANCE = 1e-9  # float values this close to the maximum are compared again as Decimals
_CONTEXT = 40  # characters either side of a winner parsed again exactly


@dataclass(frozen=True)
class _BulkPatterns:
    suffixed: re.Pattern[str]  # on the reversed text
    prefixed: re.Pattern[str]
    rates_by_marker: dict[str, str]  # marker (lower case, as matched, reversed for suffixed) -> ISO code
    prefix_markers: frozenset[str]


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(word) for word in sorted(set(words), key=lambda word: (-len(word), word)))


@lru_cache(maxsize=16)
def _bulk_patterns(codes: tuple[str, ...]) -> _BulkPatterns:
    markers = [*_CURRENCY_WORDS, *(code.lower() for code in codes)]
    prefix = [marker for marker in markers if marker not in _SUFFIX_ONLY]
    cn_chars = re.escape(CHINESE_NUMERAL_CHARS)
    reversed_scale = _REVERSED_SUFFIXED.pattern.split("(?P<scale>", 1)[1].split(")?", 1)[0]
    suffixed = re.compile(
        rf"(?P<label>{_alternation([label[::-1] for label in _LABEL_WORDS])})"
        rf"|(?P<marker>{_alternation([marker[::-1] for marker in markers])})"
        rf"(?:\s?(?:(?P<scale>{reversed_scale}))?\s?(?P<num>[0-9][0-9,.]*+)"
        rf"(?=(?P<bad>[-/:])?)(?=(?P<prefixed>\s?(?:{_alternation([marker[::-1] for marker in prefix])}))?)"
        rf"|(?=(?P<cn>[{cn_chars}])))?",
        _FLAGS,
    )
    prefixed = re.compile(rf"(?P<marker>{_alternation(prefix)}){_AFTER_PREFIX.pattern}", _FLAGS)
    by_marker = {marker[::-1]: _currency(marker, codes) or "CNY" for marker in markers}
    by_marker |= {marker: _currency(marker, codes) or "CNY" for marker in prefix}
    return _BulkPatterns(suffixed, prefixed, by_marker, frozenset(prefix))


_SCALE_FACTORS = {name: float(factor) for name, factor in _SCALES.items()} | {"": 1.0}
_REVERSED_SCALE_FACTORS = {name[::-1]: factor for name, factor in _SCALE_FACTORS.items()}
_JOINED_NUMBERS = re.compile(rf"(?:{_NUMBER_ONLY.pattern}\x00)*{_NUMBER_ONLY.pattern}".replace("?P<num>", ""))


def largest_amount(text: str, codes: tuple[str, ...], to_cny: PriceFn) -> tuple[AmountMention, Decimal] | None:
    """The amount a confirm step decides on in ``text``, with its CNY value: the largest labelled amount, else
    the largest; the first of equal ones. Amounts in a currency ``to_cny`` cannot price are left out."""
    text = normalize_digits(text)
    if text and _NOT_MODELLED.search(text) is None:
        fast = _largest_in_bulk(text, codes, to_cny)
        if fast is not None:
            return fast[0]
    return _largest_of(find_amounts(text, codes), to_cny)


def _largest_of(mentions: list[AmountMention], to_cny: PriceFn) -> tuple[AmountMention, Decimal] | None:
    priced = [(mention, cny) for mention in mentions if (cny := to_cny(mention.value, mention.currency)) is not None]
    labelled = [pair for pair in priced if pair[0].labelled]
    return max(labelled or priced, key=lambda pair: pair[1], default=None)


@dataclass(frozen=True, slots=True)
class _Candidate:
    order: int  # index among the matches of its pass
    reversed_pass: bool
    value: float


def _largest_in_bulk(
    text: str, codes: tuple[str, ...], to_cny: PriceFn
) -> tuple[tuple[AmountMention, Decimal] | None] | None:
    """``(answer,)``, or None when the text holds something only the exact scan reads."""
    patterns = _bulk_patterns(codes)
    rates = _rates(patterns, to_cny)
    backwards = text[::-1]
    found = patterns.suffixed.findall(backwards)
    candidates: list[_Candidate] = []
    if found:
        labels, markers, scales, numbers, bad, prefixed, chinese = zip(*found, strict=True)
        if any(labels) or any(chinese):
            return None
        keep = list(map(bool, numbers))
        if any(bad) or any(prefixed):
            keep = [k and not b and not p for k, b, p in zip(keep, bad, prefixed, strict=True)]
        values = _values(numbers, scales, markers, keep, rates, _REVERSED_SCALE_FACTORS, reverse=True)
        if values is None:
            return None
        candidates += _near_maximum(values, reversed_pass=True)
        present = set(markers)
        needs_prefix_pass = any(marker.lower()[::-1] in patterns.prefix_markers for marker in present)
    else:
        needs_prefix_pass = False
    if needs_prefix_pass:
        found_after = patterns.prefixed.findall(text)
        if found_after:
            markers, numbers, scales = zip(*found_after, strict=True)
            values = _values(numbers, scales, markers, None, rates, _SCALE_FACTORS, reverse=False)
            if values is None:
                return None
            candidates += _near_maximum(values, reversed_pass=False)
    if not candidates:
        return (None,)
    best = max(candidate.value for candidate in candidates)
    close = [candidate for candidate in candidates if candidate.value >= best * (1 - _REL_TOLERANCE)]
    return _exact_winner(text, backwards, codes, to_cny, patterns, close)


def _rates(patterns: _BulkPatterns, to_cny: PriceFn) -> dict[str, float | None]:
    rates: dict[str, float | None] = {}
    for marker, currency in patterns.rates_by_marker.items():
        rate = to_cny(Decimal(1), currency)
        rates[marker] = None if rate is None else float(rate)
    return rates


def _values(
    numbers: tuple[str, ...],
    scales: tuple[str, ...],
    markers: tuple[str, ...],
    keep: list[bool] | None,
    rates: dict[str, float | None],
    scale_factors: dict[str, float],
    *,
    reverse: bool,
) -> list[float] | None:
    """The CNY value of every match as a float (``-inf`` where it is no amount), in the order the pass found
    them (for the reversed text: from the end of the text); None when a
    number is not written as :func:`find_amounts` reads one (the exact scan then decides)."""
    kept_numbers = numbers if keep is None else [n if k else "0" for n, k in zip(numbers, keep, strict=True)]
    joined = "\x00".join(kept_numbers)
    if reverse:
        joined = joined[::-1]
    if _JOINED_NUMBERS.fullmatch(joined) is None:
        return None
    parsed = list(map(float, joined.replace(",", "").split("\x00")))
    if reverse:
        parsed.reverse()
    factors = map(scale_factors.__getitem__, map(str.lower, scales)) if any(scales) else None
    marker_rates = list(map(rates.__getitem__, map(str.lower, markers)))
    values = parsed if factors is None else list(map(float.__mul__, parsed, factors))
    if None in marker_rates:
        priced = [rate is not None for rate in marker_rates]
        keep = priced if keep is None else [a and b for a, b in zip(keep, priced, strict=True)]
    values = list(map(float.__mul__, values, [1.0 if rate is None else rate for rate in marker_rates]))
    if keep is not None and not all(keep):
        values = [value if kept else float("-inf") for value, kept in zip(values, keep, strict=True)]
    return values


def _near_maximum(values: list[float], *, reversed_pass: bool) -> list[_Candidate]:
    best = max(values)
    if best == float("-inf"):
        return []
    floor = best * (1 - _REL_TOLERANCE)
    return [
        _Candidate(order, reversed_pass, value) for order, value in enumerate(values) if value >= floor
    ]


def _exact_winner(
    text: str,
    backwards: str,
    codes: tuple[str, ...],
    to_cny: PriceFn,
    patterns: _BulkPatterns,
    candidates: list[_Candidate],
) -> tuple[tuple[AmountMention, Decimal] | None] | None:
    """Each candidate parsed again by the exact scan in a window around it; the largest, first of equals.
    None (use the exact scan of the whole text) if a re-parse does not confirm the value found in bulk."""
    length = len(text)
    spans: dict[int, tuple[int, float]] = {}  # number start -> (end of the amount, value found in bulk)
    suffixed = {candidate.order: candidate.value for candidate in candidates if candidate.reversed_pass}
    prefixed = {candidate.order: candidate.value for candidate in candidates if not candidate.reversed_pass}
    if suffixed:
        matches = list(patterns.suffixed.finditer(backwards))
        for order, value in suffixed.items():
            match = matches[order]
            spans[length - match.end("num")] = (length - match.start(), value)
    if prefixed:
        matches = list(patterns.prefixed.finditer(text))
        for order, value in prefixed.items():
            spans[matches[order].start("num")] = (matches[order].end(), value)
    best: tuple[AmountMention, Decimal] | None = None
    for start in sorted(spans):
        end, value = spans[start]
        window_start = max(0, start - _CONTEXT)
        mention = _scan(text[window_start : end + _CONTEXT], codes).get(start - window_start)
        cny = None if mention is None else to_cny(mention.value, mention.currency)
        if mention is None or cny is None or abs(float(cny) - value) > _REL_TOLERANCE * max(1.0, abs(value)):
            return None
        if best is None or cny > best[1]:
            best = (mention, cny)
    return (best,)
