"""The six baseline flows and the parameters they run with against the sandbox's demo data."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.baseline import (
    bank_payment,
    bank_statement,
    insurance_application,
    insurance_claim,
    securities_report,
    securities_trades,
)
from playwright.async_api import Page

from finrpa.sandbox.policies import policy_book

Runner = Callable[[Page, str, dict[str, Any]], Awaitable[dict[str, Any]]]
BANK_LOGIN = {"username": "corp_demo", "password": "demo123"}
INSURANCE_LOGIN = {"username": "agent_demo", "password": "demo123"}
SECURITIES_LOGIN = {"username": "broker_demo", "password": "demo123"}


@dataclass(frozen=True)
class Flow:
    name: str
    module: ModuleType
    params: Callable[[Path, int], dict[str, Any]]  # (work folder, sandbox seed) -> parameters

    def runner(self, layout: str) -> Runner:
        run: Runner = getattr(self.module, f"run_{layout}")
        return run


def _statement(folder: Path, seed: int) -> dict[str, Any]:
    return BANK_LOGIN | {
        "account": "1001020309000765432",
        "start": "2024-01-01",
        "end": "2024-03-31",
        "download_dir": str(folder),
    }


def _payment(folder: Path, seed: int) -> dict[str, Any]:
    return BANK_LOGIN | {
        "payer_account": "1001020309000123456",
        "payee_name": "杭州示例电子商务有限公司",
        "payee_account": "3301040160000012345",
        "payee_bank": "招商银行",
        "amount": "12345.60",
        "purpose": "2024年3月货款",
    }


def _application(folder: Path, seed: int) -> dict[str, Any]:
    return INSURANCE_LOGIN | {
        "applicant_name": "张晓华",
        "id_type": "居民身份证",
        "id_number": "11010519491231002X",
        "product": "百万医疗保险",
        "start": "2025-01-01",
        "end": "2025-12-31",
        "beneficiaries": [
            {"name": "李娜", "relation": "配偶", "share": 60},
            {"name": "张小明", "relation": "子女", "share": 40},
        ],
    }


def _claim(folder: Path, seed: int) -> dict[str, Any]:
    policy = policy_book(seed)[0]
    return INSURANCE_LOGIN | {
        "policy_no": policy.policy_no,
        "accident_date": (policy.start + timedelta(days=30)).isoformat(),
        "cause": "意外伤害",
        "amount": "8600.00",
        "description": "被保险人上班途中摔伤，门诊治疗。",
    }


def _report(folder: Path, seed: int) -> dict[str, Any]:
    attachment = folder / "合规报告_2024Q4.pdf"
    attachment.write_bytes(b"%PDF-1.4\n% FinRPA sandbox compliance report\n%%EOF\n")
    return SECURITIES_LOGIN | {
        "report_type": "季度合规报告",
        "period": "2024年第四季度",
        "file": str(attachment),
        "remarks": "按期报送",
    }


def _trades(folder: Path, seed: int) -> dict[str, Any]:
    return SECURITIES_LOGIN | {"start": "2024-01-01", "end": "2024-03-31", "download_dir": str(folder)}


FLOWS: dict[str, Flow] = {
    flow.name: flow
    for flow in (
        Flow("bank_statement", bank_statement, _statement),
        Flow("bank_payment", bank_payment, _payment),
        Flow("insurance_application", insurance_application, _application),
        Flow("insurance_claim", insurance_claim, _claim),
        Flow("securities_report", securities_report, _report),
        Flow("securities_trades", securities_trades, _trades),
    )
}
