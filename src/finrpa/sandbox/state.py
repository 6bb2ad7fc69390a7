"""What was submitted to the portals, kept in memory, so tests can check an effect happened exactly once."""

from __future__ import annotations

import threading
from datetime import datetime

from pydantic import BaseModel, Field


class PaymentRecord(BaseModel):
    reference: str
    username: str
    payer_account: str
    payee_name: str
    payee_account: str
    payee_bank: str
    amount: str
    purpose: str
    submitted_at: str
    status: str = "交易成功"


class Beneficiary(BaseModel):
    name: str
    relation: str
    share: int


class PolicyApplication(BaseModel):
    application_no: str
    username: str
    applicant_name: str
    id_type: str
    id_number: str
    product_code: str
    product_name: str
    start_date: str
    end_date: str
    beneficiaries: list[Beneficiary]
    submitted_at: str


class ClaimRecord(BaseModel):
    claim_no: str
    username: str
    policy_no: str
    accident_date: str
    cause: str
    amount: str
    description: str
    submitted_at: str


class ComplianceReport(BaseModel):
    report_no: str
    username: str
    report_type: str
    period: str
    filename: str
    size: int
    sha256: str
    remarks: str
    submitted_at: str


class OrderRecord(BaseModel):
    order_no: str
    username: str
    code: str
    name: str
    side: str
    price: str
    quantity: int
    submitted_at: str


class StateSnapshot(BaseModel):
    """The JSON served by GET /__sandbox__/state."""

    payments: list[PaymentRecord] = Field(default_factory=list)
    applications: list[PolicyApplication] = Field(default_factory=list)
    claims: list[ClaimRecord] = Field(default_factory=list)
    reports: list[ComplianceReport] = Field(default_factory=list)
    orders: list[OrderRecord] = Field(default_factory=list)
    login_failures: dict[str, int] = Field(default_factory=dict)
    locked: list[str] = Field(default_factory=list)
    last_captcha: dict[str, str] = Field(default_factory=dict)
    requests: int = 0
    injected_faults: int = 0


class SandboxState:
    """Thread-safe store of everything submitted, plus login failure counts and lockouts."""

    LOCKOUT_AFTER = 5

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data = StateSnapshot()
        self._counters: dict[str, int] = {}

    def snapshot(self) -> StateSnapshot:
        with self._lock:
            return self._data.model_copy(deep=True)

    def reset(self) -> None:
        with self._lock:
            self._data = StateSnapshot()
            self._counters.clear()

    def next_number(self, prefix: str, now: datetime) -> str:
        """A reference like HX20240315000001: prefix, date, and a per-prefix sequence."""
        with self._lock:
            self._counters[prefix] = self._counters.get(prefix, 0) + 1
            return f"{prefix}{now:%Y%m%d}{self._counters[prefix]:06d}"

    def record_payment(self, record: PaymentRecord) -> None:
        with self._lock:
            self._data.payments.append(record)

    def record_application(self, record: PolicyApplication) -> None:
        with self._lock:
            self._data.applications.append(record)

    def record_claim(self, record: ClaimRecord) -> None:
        with self._lock:
            self._data.claims.append(record)

    def record_report(self, record: ComplianceReport) -> None:
        with self._lock:
            self._data.reports.append(record)

    def record_order(self, record: OrderRecord) -> None:
        with self._lock:
            self._data.orders.append(record)

    def payments_of(self, username: str) -> list[PaymentRecord]:
        with self._lock:
            return [p for p in self._data.payments if p.username == username]

    def applications(self) -> list[PolicyApplication]:
        with self._lock:
            return list(self._data.applications)

    def is_locked(self, login: str) -> bool:
        with self._lock:
            return login in self._data.locked

    def record_wrong_password(self, login: str) -> int:
        """Count a wrong password for `login` ("portal:user"); return how many tries are left."""
        with self._lock:
            failures = self._data.login_failures.get(login, 0) + 1
            self._data.login_failures[login] = failures
            if failures >= self.LOCKOUT_AFTER and login not in self._data.locked:
                self._data.locked.append(login)
            return max(self.LOCKOUT_AFTER - failures, 0)

    def record_good_password(self, login: str) -> None:
        with self._lock:
            self._data.login_failures.pop(login, None)

    def note_captcha(self, portal: str, text: str) -> None:
        with self._lock:
            self._data.last_captcha[portal] = text

    def count_request(self, faulted: bool) -> None:
        with self._lock:
            self._data.requests += 1
            self._data.injected_faults += int(faulted)
