"""The Sanitizer: what an audit row may show of cards, accounts, ID numbers, phones, names and secrets."""

from __future__ import annotations

import json
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finrpa.audit.masking import AUDITOR, STRICT, MaskingProfile, profile_for_roles
from finrpa.audit.sanitizer import FieldKind, Sanitizer, classify_key

# Most visible digits per kind: (strict, auditor).
CARD_LIMIT = {STRICT.name: 4, AUDITOR.name: 10}
ID_LIMIT = {STRICT.name: 3, AUDITOR.name: 7}
MOBILE_LIMIT = {STRICT.name: 7, AUDITOR.name: 7}
PROFILE = st.sampled_from([STRICT, AUDITOR])

# Filler text without digits or '*': letters, CJK, punctuation and spaces.
FILLER = st.text(
    alphabet=st.characters(
        whitelist_categories=("Lu", "Ll", "Lo", "Po", "Zs"), blacklist_characters="*", max_codepoint=0x9FFF
    ),
    max_size=20,
).filter(lambda text: not any(char.isdigit() for char in text))


def _luhn_digit(body: str) -> str:
    total = 0
    for i, char in enumerate(reversed(body)):
        digit = int(char)
        if i % 2 == 0:
            digit = digit * 2 - 9 if digit * 2 > 9 else digit * 2
        total += digit
    return str((10 - total % 10) % 10)


@st.composite
def card_numbers(draw: st.DrawFn) -> str:
    """13-19 digit numbers, with a valid Luhn digit or deliberately not, optionally written in groups."""
    length = draw(st.integers(min_value=13, max_value=19))
    body = draw(st.text(alphabet="0123456789", min_size=length - 1, max_size=length - 1))
    check = _luhn_digit(body)
    if draw(st.booleans()):
        check = str((int(check) + draw(st.integers(1, 9))) % 10)  # fails Luhn
    number = body + check
    separator = draw(st.sampled_from(["", " ", "-"]))
    return separator.join(number[i : i + 4] for i in range(0, len(number), 4))


@st.composite
def prc_ids(draw: st.DrawFn) -> str:
    region = draw(st.integers(110000, 659999))
    birth = draw(st.dates(min_value=date(1930, 1, 1)))
    serial = draw(st.integers(0, 999))
    body = f"{region}{birth:%Y%m%d}{serial:03d}"
    weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    valid = "10X98765432"[sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 11]
    return body + (valid if draw(st.booleans()) else draw(st.sampled_from("0123456789X")))


MOBILES = st.builds(lambda second, rest: f"1{second}{rest:09d}", st.sampled_from("3456789"), st.integers(0, 10**9 - 1))


def _digits(text: object) -> int:
    return sum(1 for char in str(text) if char.isdigit())


@settings(max_examples=300, deadline=None)
@given(PROFILE, FILLER, card_numbers(), FILLER)
def test_card_numbers_in_text_never_show_more_digits_than_the_profile_allows(
    profile: MaskingProfile, before: str, card: str, after: str
) -> None:
    masked = Sanitizer(profile).sanitize_text(f"{before}{card}{after}")
    assert _digits(masked) <= CARD_LIMIT[profile.name]
    assert masked.replace("*", "").replace(before, "", 1) != card  # something was hidden


@settings(max_examples=200, deadline=None)
@given(PROFILE, card_numbers())
def test_card_numbers_under_a_card_key_keep_at_most_first_six_and_last_four(profile: MaskingProfile, card: str) -> None:
    masked = Sanitizer(profile).sanitize({"card_no": card, "账号": card})
    assert isinstance(masked, dict)
    for value in masked.values():
        assert _digits(value) <= CARD_LIMIT[profile.name]
        digits = [c for c in card if c.isdigit()]
        assert str(value).replace("*", "").replace(" ", "").replace("-", "").endswith("".join(digits[-4:]))


@settings(max_examples=200, deadline=None)
@given(PROFILE, FILLER, prc_ids(), FILLER)
def test_prc_id_numbers_show_at_most_the_profile_digits(
    profile: MaskingProfile, before: str, id_number: str, after: str
) -> None:
    masked = Sanitizer(profile).sanitize_text(f"{before} {id_number} {after}")
    assert _digits(masked) <= ID_LIMIT[profile.name]
    keyed = Sanitizer(profile).sanitize({"id_card": id_number})
    assert isinstance(keyed, dict)
    assert _digits(keyed["id_card"]) <= ID_LIMIT[profile.name]


@settings(max_examples=200, deadline=None)
@given(PROFILE, FILLER, MOBILES, FILLER)
def test_mobile_numbers_show_three_and_four(profile: MaskingProfile, before: str, mobile: str, after: str) -> None:
    masked = Sanitizer(profile).sanitize_text(f"{before}{mobile}{after}")
    assert _digits(masked) <= MOBILE_LIMIT[profile.name]
    assert f"{mobile[:3]}****{mobile[-4:]}" in masked


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["password", "userPassword", "pin", "cvv", "otp_code", "access_token", "secret", "交易密码"]),
    st.text(min_size=1, max_size=30),
    st.integers(min_value=0, max_value=3),
)
def test_sensitive_keys_are_always_fully_masked_at_any_depth(key: str, secret: str, depth: int) -> None:
    value: object = {key: secret}
    for level in range(depth):
        value = {f"level{level}": [value]}
    masked = Sanitizer(AUDITOR).sanitize(value)
    text = json.dumps(masked, ensure_ascii=False)
    assert '"******"' in text
    assert json.dumps(secret, ensure_ascii=False) not in text


@settings(max_examples=150, deadline=None)
@given(PROFILE, card_numbers(), prc_ids())
def test_json_bodies_are_masked_like_structures(profile: MaskingProfile, card: str, id_number: str) -> None:
    body = json.dumps({"form": {"acct": card, "note": f"证件 {id_number}", "pwd": "x"}}, ensure_ascii=False)
    masked = Sanitizer(profile).sanitize({"request_body": body})
    assert isinstance(masked, dict)
    inner = json.loads(str(masked["request_body"]))
    assert inner["form"]["pwd"] == "******"
    assert _digits(inner["form"]["acct"]) <= CARD_LIMIT[profile.name]
    assert _digits(inner["form"]["note"]) <= ID_LIMIT[profile.name]


@settings(max_examples=150, deadline=None)
@given(FILLER, card_numbers(), prc_ids(), MOBILES)
def test_masking_again_with_a_stricter_profile_only_hides_more(
    before: str, card: str, id_number: str, mobile: str
) -> None:
    text = f"{before} {card} {id_number} {mobile}"
    for_auditors = Sanitizer(AUDITOR).sanitize_text(text)
    for_operators = Sanitizer(STRICT).sanitize_text(for_auditors)
    assert _digits(for_operators) <= _digits(for_auditors)
    assert _digits(for_operators) <= CARD_LIMIT["strict"] + ID_LIMIT["strict"] + MOBILE_LIMIT["strict"]


def test_the_usual_shapes() -> None:
    masked = Sanitizer().sanitize(
        {
            "password": "hunter2",
            "card_no": "6222021234567890",
            "name": "张三丰",
            "payee_name": "李四",
            "mobile": "13812345678",
            "id_card": "11010519491231002X",
            "email": "zhang.san@bank.example",
            "tokens_used": 1234,
            "amount": "1,234,567.89",
            "auth": {"Authorization": "Bearer abcdefghijklmnop"},
        }
    )
    assert masked == {
        "password": "******",
        "card_no": "************7890",
        "name": "张**",
        "payee_name": "李*",
        "mobile": "138****5678",
        "id_card": "1***************2X",
        "email": "z***@bank.example",
        "tokens_used": 1234,
        "amount": "1,234,567.89",
        "auth": {"Authorization": "******"},
    }


def test_prose_secrets_and_forms() -> None:
    sanitizer = Sanitizer()
    assert sanitizer.sanitize_text("login ok password=hunter2&user=a") == "login ok password=******&user=a"
    assert sanitizer.sanitize_text("user=zs&pwd=123456&card=6222021234567890") == (
        "user=zs&pwd=******&card=************7890"
    )
    assert "eyJ" not in sanitizer.sanitize_text("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc")
    assert sanitizer.sanitize_text("验证码：382910") == "验证码：******"


def test_luhn_failing_card_is_still_masked() -> None:
    assert _luhn_digit("622202123456789") != "1"  # the number below fails the Luhn check
    assert Sanitizer().sanitize_text("卡号6222021234567891") == "卡号************7891"
    assert Sanitizer(AUDITOR).sanitize_text("卡号6222021234567891") == "卡号622202******7891"


def test_numbers_side_by_side_are_masked_one_by_one() -> None:
    assert Sanitizer().sanitize_text("13812345678 6222 0212 3456 7890") == "138****5678 **** **** **** 7890"


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("password", FieldKind.SECRET),
        ("newPassword", FieldKind.SECRET),
        ("pin", FieldKind.SECRET),
        ("shipping_address", None),
        ("token_count", None),
        ("refresh_token", FieldKind.SECRET),
        ("account_name", FieldKind.NAME),
        ("file_name", None),
        ("accountNo", FieldKind.CARD),
        ("收款账号", FieldKind.CARD),
        ("身份证号", FieldKind.PRC_ID),
        ("手机号", FieldKind.MOBILE),
        ("户名", FieldKind.NAME),
    ],
)
def test_keys_are_classified_by_their_words(key: str, kind: FieldKind | None) -> None:
    assert classify_key(key) is kind


def test_profiles_per_role_default_to_the_most_restrictive() -> None:
    assert profile_for_roles([]) is STRICT
    assert profile_for_roles(["operator", "viewer"]) is STRICT
    assert profile_for_roles(["unknown-role"]) is STRICT
    assert profile_for_roles(["viewer", "auditor"]) is AUDITOR


def test_finrpa_identifiers_are_not_taken_for_numbers_but_digits_alone_still_are() -> None:
    sanitizer = Sanitizer()
    policy_id = "32bbe9c5d48742cf881782776685d406"  # a digit run of 12 inside: no card or phone number
    assert sanitizer.sanitize({"policy_id": policy_id}) == {"policy_id": policy_id}
    dashed = "32bbe9c5-d487-42cf-8817-82776685d406"
    assert sanitizer.sanitize({"run": dashed}) == {"run": dashed}
    assert sanitizer.sanitize({"note": "x" + policy_id})["note"] != "x" + policy_id  # not an identifier: masked
    assert "13812345678" not in str(sanitizer.sanitize({"note": "13812345678901234567890123456789"}))
