"""The sandbox's fixed catalogue: demo users and their accounts, products, banks and listed securities.

Published demo data (the landing page and docs/sandbox.md list it); nothing here is a real credential.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Portal = Literal["bank", "insurance", "securities"]
PORTALS: tuple[Portal, ...] = ("bank", "insurance", "securities")
DEMO_PASSWORD = "demo123"  # noqa: S105 - published sandbox password, documented on the landing page


@dataclass(frozen=True)
class Account:
    number: str
    holder: str
    currency: str
    kind_zh: str
    kind_en: str
    branch: str


@dataclass(frozen=True)
class DemoUser:
    portal: Portal
    username: str
    display_name: str
    totp_secret: str  # base32, documented so tests and skills can compute the 动态口令
    accounts: tuple[Account, ...] = ()


_CORP = "上海沙箱科技有限公司"
_TRADE = "北京示例贸易有限公司"
USERS: tuple[DemoUser, ...] = (
    DemoUser(
        "bank",
        "corp_demo",
        _CORP,
        "SANDBOXBANKCORPDEMOSEED234567ABC",
        (
            Account(
                "1001020309000123456",
                _CORP,
                "CNY",
                "基本存款账户",
                "Basic deposit account",
                "沙箱银行上海分行",
            ),
            Account(
                "1001020309000765432",
                _CORP,
                "CNY",
                "一般存款账户",
                "General deposit account",
                "沙箱银行浦东支行",
            ),
            Account(
                "1001020314000555888",
                _CORP,
                "USD",
                "外汇结算账户",
                "FX settlement account",
                "沙箱银行上海分行",
            ),
        ),
    ),
    DemoUser(
        "bank",
        "corp_ops",
        _TRADE,
        "SANDBOXBANKCORPOPSSEED234567ABCD",
        (
            Account(
                "1001020409000246810",
                _TRADE,
                "CNY",
                "基本存款账户",
                "Basic deposit account",
                "沙箱银行北京分行",
            ),
        ),
    ),
    DemoUser("insurance", "agent_demo", "张晓明（代理人 A0012）", "SANDBOXINSURANCEAGENTSEED234567A"),
    DemoUser(
        "securities",
        "broker_demo",
        "沙箱资产管理有限公司",
        "SANDBOXSECURITIESBROKERSEED2345A",
        (
            Account(
                "880012345678",
                "沙箱资产管理有限公司",
                "CNY",
                "机构资金账户",
                "Institutional account",
                "沙箱证券上海营业部",
            ),
        ),
    ),
)


def find_user(portal: Portal, username: str) -> DemoUser | None:
    """The demo user of `portal` called `username`, or None."""
    return next((u for u in USERS if u.portal == portal and u.username == username), None)


def find_account(user: DemoUser, number: str) -> Account | None:
    """The user's own account with this number, or None (users never see others' accounts)."""
    return next((a for a in user.accounts if a.number == number), None)


@dataclass(frozen=True)
class Product:
    code: str
    name_zh: str
    name_en: str


PRODUCTS: tuple[Product, ...] = (
    Product("PA01", "个人意外伤害保险", "Personal accident insurance"),
    Product("GA02", "团体意外伤害保险", "Group accident insurance"),
    Product("TL03", "定期寿险（20年）", "Term life insurance (20 years)"),
    Product("CI04", "终身重大疾病保险", "Whole-life critical illness insurance"),
    Product("MD05", "百万医疗保险", "Million medical insurance"),
    Product("PR06", "企业财产综合险", "Commercial property insurance"),
)


def find_product(code: str) -> Product | None:
    return next((p for p in PRODUCTS if p.code == code), None)


BANKS: tuple[str, ...] = (
    "沙箱银行",
    "中国工商银行",
    "中国农业银行",
    "中国银行",
    "中国建设银行",
    "交通银行",
    "招商银行",
    "上海浦东发展银行",
    "兴业银行",
    "中信银行",
)


@dataclass(frozen=True)
class Security:
    code: str
    name: str
    base_price_cents: int


SECURITIES: tuple[Security, ...] = (
    Security("600100", "示例银行", 1052),
    Security("600230", "沙箱能源", 2318),
    Security("600519", "示例酒业", 168_800),
    Security("601318", "示例保险", 4590),
    Security("000001", "沙箱地产", 1176),
    Security("000858", "示例食品", 14_320),
    Security("002415", "沙箱电子", 3189),
    Security("300750", "示例新能源", 19_650),
    Security("600036", "沙箱招银", 3422),
    Security("688001", "示例芯片", 7_705),
)


def find_security(code: str) -> Security | None:
    return next((s for s in SECURITIES if s.code == code), None)
