"""Masking rules and the free-text scanner behind :class:`finrpa.audit.sanitizer.Sanitizer`.

A *profile* says how much of each kind of value stays visible. ``STRICT`` (the default, for everybody
without a looser grant) keeps a card or account number's last 4 digits, a PRC ID number's first 1 and last
2, a mobile number's first 3 and last 4, a name's first character. ``AUDITOR`` keeps the first 6 and last 4
of a card, the first 3 and last 4 of an ID number. Secrets are always ``******``.

The scanner finds runs of digits (``*`` counts as a digit slot, so masking an already masked value again can
only hide more) joined by single spaces or dashes, and classifies them by length: 18 slots that look like a
PRC ID number (or end in X) → ID; 15 digits with a valid date → first-generation ID; 11 digits starting
1[3-9] → mobile; 12 or more → card or account number. Luhn is deliberately not required: some UnionPay
cards and every account number fail it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

SECRET_MASK = "******"  # noqa: S105 - what a secret is replaced with


@dataclass(frozen=True)
class MaskingProfile:
    """How many characters of each kind of sensitive value stay visible."""

    name: str
    card_first: int
    card_last: int
    id_first: int
    id_last: int
    mobile_first: int = 3
    mobile_last: int = 4


STRICT = MaskingProfile("strict", card_first=0, card_last=4, id_first=1, id_last=2)
AUDITOR = MaskingProfile("auditor", card_first=6, card_last=4, id_first=3, id_last=4)
PROFILES = {profile.name: profile for profile in (STRICT, AUDITOR)}

# Roles that may see the AUDITOR profile; everyone else (and every unknown role) gets STRICT.
ROLE_PROFILES: dict[str, MaskingProfile] = {"auditor": AUDITOR, "org_admin": AUDITOR, "super_admin": AUDITOR}


def profile_for_roles(roles: Iterable[str], role_profiles: dict[str, MaskingProfile] | None = None) -> MaskingProfile:
    """The loosest profile any of ``roles`` is granted, STRICT when none is."""
    mapping = ROLE_PROFILES if role_profiles is None else role_profiles
    granted = [mapping[role] for role in roles if role in mapping]
    if not granted:
        return STRICT
    return max(granted, key=lambda p: p.card_first + p.card_last + p.id_first + p.id_last)


# Digit slots ("*" included) joined by at most one space or dash, optionally closed by an ID's X.
_RUN = re.compile(r"(?<![\d*])[\d*](?:[ \-]?[\d*]){7,}(?:[Xx](?![A-Za-z0-9]))?(?![\d*])")
_EMAIL = re.compile(r"(?<![\w.+-])([\w.+-])[\w.+-]*@([\w-]+(?:\.[\w-]+)+)")
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}")
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*")
_SECRET_PAIR = re.compile(
    r"(?i)(?<![A-Za-z])(password|passwd|pwd|passcode|pin|cvv2?|cvc2?|otp|totp|token|secret|api[_-]?key|"
    r"access[_-]?token|refresh[_-]?token|密码|验证码|口令|动态码)"
    r"([\"']?\s*[=:：]\s*[\"']?)([^\s&;,\"'}]+)"
)


def _is_slot(char: str) -> bool:
    return char.isdigit() or char == "*"


def visible_counts(slots: int, first: int, last: int, min_hidden: int) -> tuple[int, int]:
    """Shrink (first, last) so that at least ``min_hidden`` slots stay hidden; the last digits go last."""
    shown = max(0, slots - min_hidden)
    keep_last = min(last, shown)
    keep_first = min(first, shown - keep_last)
    return keep_first, keep_last


def mask_slots(text: str, first: int, last: int, min_hidden: int, *, x_is_slot: bool = False) -> str:
    """Replace every digit slot of ``text`` by ``*`` except the first ``first`` and last ``last``."""
    is_slot = (lambda c: _is_slot(c) or c in "Xx") if x_is_slot else _is_slot
    positions = [i for i, char in enumerate(text) if is_slot(char)]
    keep_first, keep_last = visible_counts(len(positions), first, last, min_hidden)
    hidden = positions[keep_first : len(positions) - keep_last]
    if not hidden:
        return text
    chars = list(text)
    for index in hidden:
        chars[index] = "*"
    return "".join(chars)


def mask_card(text: str, profile: MaskingProfile, min_hidden: int = 6) -> str:
    return mask_slots(text, profile.card_first, profile.card_last, min_hidden)


def mask_prc_id(text: str, profile: MaskingProfile, min_hidden: int = 6) -> str:
    return mask_slots(text, profile.id_first, profile.id_last, min_hidden, x_is_slot=True)


def mask_mobile(text: str, profile: MaskingProfile) -> str:
    digits = sum(1 for char in text if _is_slot(char))
    if digits == 11:
        return mask_slots(text, profile.mobile_first, profile.mobile_last, 4)
    return mask_card(text, STRICT, min_hidden=4)


def mask_name(text: str) -> str:
    stripped = text.strip()
    if not stripped:
        return text
    return stripped[0] + "*" * (len(stripped) - 1)


def mask_email(text: str) -> str:
    return _EMAIL.sub(lambda m: f"{m.group(1)}***@{m.group(2)}", text)


def _plausible_date(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def looks_like_prc_id(slots: str) -> bool:
    """18 characters with a plausible birth date, or ending in X (MOD 11-2 deliberately not required)."""
    if len(slots) != 18:
        return False
    if slots[-1] in "Xx" or "*" in slots:
        return True
    return slots[0] != "0" and _plausible_date(int(slots[6:10]), int(slots[10:12]), int(slots[12:14]))


def _looks_like_old_prc_id(slots: str) -> bool:
    if len(slots) != 15 or not slots.isdigit():
        return False
    return _plausible_date(1900 + int(slots[6:8]), int(slots[8:10]), int(slots[10:12]))


_SEPARATOR = re.compile(r"[ \-]")
_LONGEST_FORMATTED_GROUP = 10  # card, phone and ID numbers are written in groups of at most 8 digits


def _mask_run(match: re.Match[str], profile: MaskingProfile) -> str:
    run = match.group(0)
    last_piece = _SEPARATOR.split(run)[-1]
    if run[-1] in "Xx" and sum(1 for char in last_piece if _is_slot(char)) != 17:
        return _mask_run_text(run[:-1], profile) + run[-1]  # an X that does not end an ID number is a letter
    return _mask_run_text(run, profile)


def _mask_run_text(run: str, profile: MaskingProfile) -> str:
    parts = _SEPARATOR.split(run)
    if len(parts) == 1 or max(len(part) for part in parts) <= _LONGEST_FORMATTED_GROUP:
        return _mask_number(run, profile)
    return _mask_side_by_side(run, profile)


def _mask_side_by_side(run: str, profile: MaskingProfile) -> str:
    """Several numbers in one run ("13812345678 6222 0212 3456 7890"): long pieces stand alone, short
    neighbouring pieces are one number written in groups."""
    output: list[str] = []
    group: list[str] = []

    def flush() -> None:
        if group:
            text = "".join(group)
            core = text.rstrip(" -")
            output.append(_mask_number(core, profile) + text[len(core) :])
            group.clear()

    for part in re.split(r"([ \-])", run):
        if part and not _SEPARATOR.fullmatch(part) and len(part) > _LONGEST_FORMATTED_GROUP:
            flush()
            output.append(_mask_number(part, profile))
        elif output and not group and _SEPARATOR.fullmatch(part):
            output.append(part)
        else:
            group.append(part)
    flush()
    return "".join(output)


def _mask_number(run: str, profile: MaskingProfile) -> str:
    slots = "".join(char for char in run if _is_slot(char) or char in "Xx")
    if not any(char.isdigit() for char in slots):
        return run
    if looks_like_prc_id(slots) or _looks_like_old_prc_id(slots):
        return mask_prc_id(run, profile)
    if len(slots) == 11 and slots[0] == "1" and slots[1] in "3456789*":
        return mask_slots(run, profile.mobile_first, profile.mobile_last, 4)
    if len(slots) >= 12:
        return mask_card(run, profile)
    return run


def mask_free_text(text: str, profile: MaskingProfile) -> str:
    """Mask what can be recognised in prose: numbers, e-mail addresses, tokens, ``password=…`` pairs."""
    text = _SECRET_PAIR.sub(lambda m: f"{m.group(1)}{m.group(2)}{SECRET_MASK}", text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {SECRET_MASK}", text)
    text = _JWT.sub(SECRET_MASK, text)
    text = mask_email(text)
    return _RUN.sub(lambda m: _mask_run(m, profile), text)
