"""`finrpa demo`: the main job on a fresh machine, with no services and no LLM.

Starts the bundled sandbox portals, seeds a demo organisation (bank operations department, operator, approver,
auditor) with the sandbox credentials in the vault, runs bank_statement_download end to end in headless
Chromium, checks the CSV against the sandbox's own statement for that period, verifies the audit chain, and
says where everything is. Exit code 0 only if the CSV matches and the chain verifies.
"""

from __future__ import annotations

import asyncio
import csv
import io
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import typer

from finrpa.audit.service import AuditService
from finrpa.bootstrap import App, open_app
from finrpa.commands.runs import execute_run, start_run
from finrpa.db.engine import unit_of_work
from finrpa.identity.permissions import Principal
from finrpa.identity.seed import DEMO_PEOPLE
from finrpa.identity.seed import seed_demo_org as seed_identity
from finrpa.sandbox.config import SandboxConfig
from finrpa.sandbox.directory import DEMO_PASSWORD
from finrpa.sandbox.ledger import statement_rows
from finrpa.sandbox.server import SandboxServer
from finrpa.tenancy.context import system_context
from finrpa.vault.service import VaultService

DEMO_ACCOUNT = "1001020309000123456"
DEMO_USER = "corp_demo"
DEMO_ORG_SLUG = "demo-bank"
DEMO_PERIOD = (date(2024, 1, 1), date(2024, 3, 31))
BANK_PASSWORD_SECRET = "sandbox-bank-password"  # noqa: S105 - the vault entry's name


@dataclass
class CsvCheck:
    name: str
    rows: int
    expected: int
    matches: bool
    detail: str


def demo(
    port: int = typer.Option(0, "--sandbox-port", help="Port of the sandbox portals (0: any free port)."),
    serve: bool = typer.Option(
        True, "--serve/--no-serve", help="Afterwards keep the dashboard running at http://127.0.0.1:8000."
    ),
) -> None:
    """Run the bank-statement download against the bundled sandbox, end to end, and verify the result."""
    ok, summary = asyncio.run(_demo(port))
    for line in summary:
        typer.echo(line)
    if not ok:
        raise typer.Exit(1)
    if serve:
        from finrpa.commands.serve import serve as serve_dashboard

        typer.echo("Dashboard: http://127.0.0.1:8000 (sign in to org demo-bank with a user from demo-users.txt; "
                   "Ctrl-C stops it)")
        serve_dashboard(host=None, port=None, worker=True, web_dist=None)


async def _demo(port: int) -> tuple[bool, list[str]]:
    async with open_app(auto_migrate=True) as app:
        demo_org = await seed_demo_org(app)
        org_id = demo_org.org_id
        config = SandboxConfig(host="127.0.0.1", port=port)
        server = SandboxServer(config)
        base_url = await asyncio.to_thread(server.start)
        try:
            arguments: dict[str, Any] = {
                "bank_url": f"{base_url}/bank/login",
                "username": DEMO_USER,
                "password": f"secret://{BANK_PASSWORD_SECRET}",
                "account_number": DEMO_ACCOUNT,
                "start_date": DEMO_PERIOD[0].isoformat(),
                "end_date": DEMO_PERIOD[1].isoformat(),
                "output_path": "statement.csv",
            }
            run_id = await start_run(
                app, org_id, "bank_statement_download", arguments, created_by="demo", dept_id=demo_org.dept_id
            )
            outcome = await execute_run(app, org_id, run_id)
        finally:
            await asyncio.to_thread(server.stop)
        folder = Path(outcome["folder"])
        checks = [
            check_csv(folder / "statement.csv", "portal export", config.seed),
            check_csv(folder / "extracted_transactions.csv", "extracted table", config.seed),
        ]
        chain_ok, chain_line = await verify_chain(app, org_id)
    lines = [f"run {run_id}: {outcome['status']}" + (f" ({outcome['error']})" if outcome["error"] else "")]
    lines += [
        f"  {c.name}: {c.rows} rows, sandbox statement has {c.expected}: "
        f"{'MATCH' if c.matches else 'MISMATCH'} {c.detail}"
        for c in checks
    ]
    lines.append(f"  audit chain: {chain_line}")
    lines.append(f"  CSV:          {folder / 'statement.csv'}")
    lines.append(f"  screenshots:  {app.settings.data_dir.resolve() / 'objects'} (audit/{org_id}/{run_id}/…)")
    lines.append(f"  actions:      `finrpa tasks show {run_id}` and `finrpa audit search --task {run_id}`")
    lines.append(f"  demo users:   {demo_org.credentials_file} (operator, approver, approver2, auditor)")
    ok = outcome["status"] == "COMPLETED" and all(c.matches for c in checks) and chain_ok
    return ok, lines


@dataclass
class DemoOrg:
    org_id: str
    dept_id: str
    users: dict[str, str]  # role -> username
    credentials_file: Path


async def seed_demo_org(app: App) -> DemoOrg:
    """The demo organisation of `finrpa.identity.seed` (bank-operations department, an operator, two approvers and an
    auditor) plus the sandbox bank password in its vault, bound to that department. Created once; later runs reuse
    it. Each new user's random password is written once to ``var/demo-users.txt`` (mode 0600) — demo only, never on
    a production path."""
    credentials = app.settings.data_dir / "demo-users.txt"
    async with unit_of_work(app.database.sessions) as session:
        seeded = await seed_identity(session, app.settings, slug=DEMO_ORG_SLUG, name="演示银行股份有限公司")
    with system_context("seed the demo organisation: vault", org_id=seeded.org_id):
        async with unit_of_work(app.database.sessions) as session:
            await VaultService(session, app.settings).put_secret(
                Principal.platform(seeded.org_id, "demo"),
                seeded.org_id,
                BANK_PASSWORD_SECRET,
                DEMO_PASSWORD,
                dept_id=seeded.department_id,
                description="Sandbox bank portal password (demo)",
            )
    roles = {username: role for username, _, role in DEMO_PEOPLE}
    if seeded.passwords:
        credentials.touch(mode=0o600, exist_ok=True)
        with credentials.open("a", encoding="utf-8") as handle:
            handle.writelines(f"{name}\t{roles[name].value}\t{pw}\n" for name, pw in seeded.passwords.items())
    return DemoOrg(
        org_id=seeded.org_id,
        dept_id=seeded.department_id,
        users={username: username for username in seeded.user_ids},
        credentials_file=credentials,
    )


def check_csv(path: Path, name: str, seed: int) -> CsvCheck:
    """Compare a statement CSV with the sandbox's statement for the demo period (serial numbers and amounts)."""
    expected = statement_rows(DEMO_ACCOUNT, DEMO_PERIOD[0], DEMO_PERIOD[1], seed)
    if not path.is_file():
        return CsvCheck(name, 0, len(expected), False, f"({path.name} was not produced)")
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    header, body = rows[0], [row for row in rows[1:] if row]
    serial_col = _column(header, ("流水号", "Serial", "交易流水号"))
    debit_col = _column(header, ("借方金额", "Debit", "支出金额"))
    credit_col = _column(header, ("贷方金额", "Credit", "收入金额"))
    if serial_col is None or debit_col is None or credit_col is None:
        return CsvCheck(name, len(body), len(expected), False, f"(missing columns in {header})")
    got = {(r[serial_col].strip(), _amount(r[debit_col]), _amount(r[credit_col])) for r in body}
    want = {(r.serial, r.debit or Decimal(0), r.credit or Decimal(0)) for r in expected}
    missing, extra = len(want - got), len(got - want)
    matches = not missing and not extra and len(body) == len(expected)
    detail = "" if matches else f"({missing} missing, {extra} unexpected)"
    return CsvCheck(name, len(body), len(expected), matches, detail)


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    for index, title in enumerate(header):
        if title.strip() in names:
            return index
    return None


def _amount(text: str) -> Decimal:
    cleaned = text.replace(",", "").replace("¥", "").strip()
    return Decimal(cleaned) if cleaned else Decimal(0)


async def verify_chain(app: App, org_id: str) -> tuple[bool, str]:
    """Verify the organisation's chain, sign a checkpoint outside the database, and verify against it."""
    audit = AuditService.from_settings(app.settings)
    with system_context("verify the demo organisation's audit chain", org_id=org_id):
        async with unit_of_work(app.database.sessions) as session:
            report = await audit.verify(session, org_id)
            if report.ok:
                await audit.checkpoint_from(report)
                report = await audit.verify(session, org_id)
    return report.ok, report.summary()
