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
    text = normalize_digits(text)
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
    return [scan.found[start] for start in sorted(scan.found)]


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
