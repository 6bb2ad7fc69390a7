"""The generic Sanitizer: the second masking layer, after a skill's own ``to_audit_dict``.

It walks any JSON-like value (dicts, lists, JSON text, form-encoded bodies, prose) and masks by two signals:

* the *key* a value sits under — ``password``, ``pin``, ``cvv``, ``otp``, ``secret``, ``*_token`` … are
  always ``******`` whatever the value; ``card_no``/``account``/``卡号`` mask digits, ``id_card``/``身份证``
  as an ID number, ``mobile``/``手机`` as a phone, ``name``/``户名``/``payee`` to the first character;
* the *shape* of the text (see :mod:`finrpa.audit.masking`) for values under any other key.

Usage::

    Sanitizer().sanitize({"card_no": "6222021234567890", "password": "x"})
    # {'card_no': '************7890', 'password': '******'}
    Sanitizer.for_roles({"auditor"}).sanitize_text("卡号 6222 0212 3456 7890")
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from functools import lru_cache
from urllib.parse import parse_qsl, urlencode

from typing_extensions import TypeAliasType

from finrpa.audit.masking import (
    SECRET_MASK,
    STRICT,
    MaskingProfile,
    mask_card,
    mask_email,
    mask_free_text,
    mask_mobile,
    mask_name,
    mask_prc_id,
    profile_for_roles,
)

AuditValue = TypeAliasType("AuditValue", "bool | int | float | str | list[AuditValue] | dict[str, AuditValue] | None")


class FieldKind(Enum):
    SECRET = "secret"  # noqa: S105 - the kind of field, not a secret
    NAME = "name"
    PRC_ID = "prc_id"
    MOBILE = "mobile"
    EMAIL = "email"
    CARD = "card"


_SECRET_WORDS = frozenset(
    {
        "password", "passwd", "pwd", "passphrase", "passcode", "pin", "pincode", "cvv", "cvv2", "cvc", "cvc2",
        "otp", "totp", "hotp", "secret", "secrets", "credential", "credentials", "authorization", "cookie",
        "cookies", "mfa", "smscode",
    }
)  # fmt: skip
_SECRET_SUFFIXES = ("token", "apikey", "privatekey", "accesskey", "secretkey", "sessionid", "signingkey")
_SECRET_CJK = ("密码", "口令", "验证码", "动态码", "校验码", "安全码", "令牌", "密钥")
_NAME_COMPACT = frozenset(
    {
        "fullname", "realname", "firstname", "lastname", "surname", "givenname", "familyname", "username",
        "cardholder", "holder", "accountholder", "payee", "payer", "beneficiary", "insured", "policyholder",
        "applicant", "customer", "contact",
    }
)  # fmt: skip
_NAME_OWNERS = frozenset(
    {
        "customer", "client", "full", "real", "first", "last", "given", "family", "middle", "legal", "holder",
        "account", "payee", "payer", "beneficiary", "applicant", "insured", "contact", "user", "cardholder",
        "person", "owner", "signer",
    }
)  # fmt: skip
_NAME_CJK = (
    "姓名", "户名", "客户名", "名字", "收款人", "付款人", "持卡人", "投保人", "被保险人", "受益人", "申请人", "联系人",
)  # fmt: skip
_ID_COMPACT = frozenset(
    {
        "idcard", "idcardno", "idcardnumber", "idno", "idnumber", "identity", "identityno", "identitycard",
        "nationalid", "certno", "certificateno", "certificatenumber", "citizenid", "residentid", "ssn",
    }
)  # fmt: skip
_ID_CJK = ("身份证", "证件号")
_MOBILE_WORDS = frozenset({"mobile", "phone", "tel", "telephone", "cellphone", "cell", "msisdn", "fax"})
_MOBILE_CJK = ("手机", "电话", "联系方式")
_EMAIL_WORDS = frozenset({"email", "mail", "emails"})
_CARD_WORDS = frozenset(
    {"card", "cardno", "cardnumber", "pan", "account", "acct", "accountno", "accountnumber", "acctno", "iban",
     "bankcard", "debit", "credit"}
)  # fmt: skip
_CARD_CJK = ("卡号", "账号", "帐号", "账户", "帐户", "卡")

_WORD_SPLIT = re.compile(r"[^0-9A-Za-z\u4e00-\u9fff]+|(?<=[a-z0-9])(?=[A-Z])")
_FORM_BODY = re.compile(r"^[^\s=&]+=[^\s&]*(?:&[^\s=&]+=[^\s&]*)*$")
# FinRPA's own identifiers (uuid4 hex, or the dashed form): a digit run inside one is no card or phone number.
_IDENTIFIER = re.compile(r"(?=[0-9]*[a-f])(?:[0-9a-f]{32}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})")
_LARGEST_PLAIN_INT = 10**11  # integers with 12+ digits are treated like the numbers they probably are


def _words(key: str) -> list[str]:
    return [word.lower() for word in _WORD_SPLIT.split(key) if word]


def _is_secret(words: list[str], compact: str) -> bool:
    if any(word in _SECRET_WORDS for word in words) or compact.endswith(_SECRET_SUFFIXES):
        return True
    return any(marker in compact for marker in (*_SECRET_CJK, "password", "passwd"))


def _is_name(words: list[str], compact: str) -> bool:
    if compact in _NAME_COMPACT or any(marker in compact for marker in _NAME_CJK):
        return True
    return bool(words) and words[-1] in ("name", "names") and (len(words) == 1 or words[0] in _NAME_OWNERS)


@lru_cache(maxsize=4096)  # the same few hundred field names come back all the time
def classify_key(key: str) -> FieldKind | None:
    """What kind of value a key promises, by its words (``cardNo``, ``card_no``, ``卡号`` …)."""
    words = _words(key)
    compact = "".join(words)
    if _is_secret(words, compact):
        return FieldKind.SECRET
    if _is_name(words, compact):
        return FieldKind.NAME
    if compact in _ID_COMPACT or any(marker in compact for marker in _ID_CJK):
        return FieldKind.PRC_ID
    if any(word in _MOBILE_WORDS for word in words) or any(marker in compact for marker in _MOBILE_CJK):
        return FieldKind.MOBILE
    if any(word in _EMAIL_WORDS for word in words) or "邮箱" in compact:
        return FieldKind.EMAIL
    if any(word in _CARD_WORDS for word in words) or any(marker in compact for marker in _CARD_CJK):
        return FieldKind.CARD
    return None


class Sanitizer:
    """Masks sensitive values in JSON-like data according to one :class:`MaskingProfile`."""

    def __init__(self, profile: MaskingProfile = STRICT) -> None:
        self.profile = profile

    @classmethod
    def for_roles(cls, roles: Iterable[str]) -> Sanitizer:
        """The sanitizer for a viewer with these roles (STRICT unless a role grants more)."""
        return cls(profile_for_roles(roles))

    def sanitize(self, value: object, key: str | None = None) -> AuditValue:
        """A masked copy of ``value`` (dicts, lists, tuples, text, numbers; anything else as text)."""
        kind = classify_key(key) if key is not None else None
        return self._value(value, kind)

    def sanitize_text(self, text: str) -> str:
        return self._text(text, None)

    def _value(self, value: object, kind: FieldKind | None) -> AuditValue:
        if kind is FieldKind.SECRET:
            return None if value is None else SECRET_MASK
        if value is None or isinstance(value, bool | float):
            return value
        if isinstance(value, int):
            if kind is None and abs(value) < _LARGEST_PLAIN_INT:
                return value
            return self._text(str(value), kind)
        if isinstance(value, str):
            return self._text(value, kind)
        if isinstance(value, Mapping):
            return self._mapping(value, kind)
        if isinstance(value, list | tuple | set | frozenset):
            return [self._value(item, kind) for item in value]
        return self._text(_as_text(value), kind)

    def _mapping(self, value: Mapping[object, object], inherited: FieldKind | None) -> dict[str, AuditValue]:
        result: dict[str, AuditValue] = {}
        for raw_key, item in value.items():
            key = str(raw_key)
            result[key] = self._value(item, classify_key(key) or inherited)
        return result

    def _text(self, text: str, kind: FieldKind | None) -> str:
        if kind is None:
            return self._untyped_text(text)
        if kind is FieldKind.SECRET:
            return SECRET_MASK
        if kind is FieldKind.NAME:
            return mask_name(text)
        if kind is FieldKind.PRC_ID:
            return mask_prc_id(text, self.profile, min_hidden=4)
        if kind is FieldKind.MOBILE:
            return mask_mobile(text, self.profile)
        if kind is FieldKind.EMAIL:
            return mask_free_text(mask_email(text), self.profile)
        return mask_card(text, self.profile, min_hidden=4)

    def _untyped_text(self, text: str) -> str:
        stripped = text.strip()
        if _IDENTIFIER.fullmatch(stripped):
            return text
        if stripped[:1] in ("{", "["):
            try:
                parsed = json.loads(stripped)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict | list):
                return json.dumps(self._value(parsed, None), ensure_ascii=False, separators=(",", ":"))
        if "=" in stripped and _FORM_BODY.match(stripped):
            pairs = parse_qsl(stripped, keep_blank_values=True)
            if pairs:
                masked = [(k, str(self._value(v, classify_key(k)))) for k, v in pairs]
                return urlencode(masked, safe="*")
        return mask_free_text(text, self.profile)


def _as_text(value: object) -> str:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)
