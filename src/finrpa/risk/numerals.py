"""Numbers as people write them on Chinese financial portals: full-width digits and Chinese numerals.

``parse_chinese_numeral("壹佰伍拾万")`` is 1500000; ``normalize_digits("１５０万")`` is "150万".
"""

from __future__ import annotations

import re
from decimal import Decimal

_FULL_WIDTH = re.compile("[\uff10-\uff19]")
_FULL_WIDTH_TABLE = str.maketrans(
    {**{chr(0xFF10 + digit): str(digit) for digit in range(10)}, "，": ",", "．": ".", "￥": "¥", "＄": "$"}
)

CHINESE_DIGITS: dict[str, int] = {
    "零": 0, "〇": 0,
    "一": 1, "壹": 1, "幺": 1,
    "二": 2, "贰": 2, "貳": 2, "两": 2, "兩": 2,
    "三": 3, "叁": 3, "參": 3,
    "四": 4, "肆": 4,
    "五": 5, "伍": 5,
    "六": 6, "陆": 6, "陸": 6,
    "七": 7, "柒": 7,
    "八": 8, "捌": 8,
    "九": 9, "玖": 9,
}  # fmt: skip
_SMALL_UNITS = {"十": 10, "拾": 10, "什": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_WAN = frozenset("万萬")
_YI = frozenset("亿億")
CHINESE_NUMERAL_CHARS = "".join(CHINESE_DIGITS) + "".join(_SMALL_UNITS) + "万萬亿億"


def normalize_digits(text: str) -> str:
    """Full-width digits (and the comma, point and currency signs around them) become ASCII."""
    if _FULL_WIDTH.search(text) is None:
        return text
    return text.translate(_FULL_WIDTH_TABLE)


def parse_chinese_numeral(text: str) -> int | None:
    """The integer a Chinese numeral denotes (lower or upper case), or None when it holds no digit."""
    if not any(char in CHINESE_DIGITS for char in text):
        return None
    yi_part = wan_part = section = number = 0
    for char in text:
        if char in CHINESE_DIGITS:
            number = CHINESE_DIGITS[char]
        elif char in _SMALL_UNITS:
            section += (number or 1) * _SMALL_UNITS[char]
            number = 0
        elif char in _WAN:
            wan_part = (wan_part + section + number) * 10_000
            section = number = 0
        elif char in _YI:
            yi_part = (yi_part + wan_part + section + number) * 100_000_000
            wan_part = section = number = 0
        else:
            return None
    return yi_part + wan_part + section + number


def parse_chinese_fraction(jiao: str | None, fen: str | None) -> Decimal:
    """角 and 分 digits as a decimal fraction of one yuan."""
    total = Decimal(0)
    if jiao:
        total += Decimal(CHINESE_DIGITS.get(jiao, 0)) / 10
    if fen:
        total += Decimal(CHINESE_DIGITS.get(fen, 0)) / 100
    return total
