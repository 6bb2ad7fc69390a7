"""Each template's wall time through FinRPA (verified actions, events, checkpoints, audit rows; screenshots on
and off) against the hand-written Playwright baseline doing the same clicks, interleaved in one run.

    python bench/bench_templates.py [--layout v1|v2] [--repeat 3] [--flows bank_statement,bank_payment] [--breakdown]
                                    [--latency-ms 0] [--warmup 1]

``--warmup`` rounds of each flow (all three kinds) run first and are not counted: FinRPA's per-process caches (the
risk keyword automata of the portal's domain, parsed templates, compiled policies) are then built, as on a worker that
has been running, and the browser and the portal are warm for the baseline alike.

``--breakdown`` also prints where each FinRPA run's time goes, by phase (bench/phases.py).

``--latency-ms`` makes the sandbox answer every page and form request that much later (its own ``--latency-ms``), as
a portal across a network does; the default 0 is the strictest comparison (a local portal answering at once, so
FinRPA's fixed costs per step weigh most).

Four kinds of run are interleaved, in a rotating order: the baseline without screenshots; the baseline with
screenshots (the script captures the page before each action and after the last, as a hand-written script that keeps
evidence does: bench/baseline/evidence.py); FinRPA with screenshots (masked before- and after-shots of every action,
stored, hashed and recorded); FinRPA without. Targets: FinRPA ≤ 1.5× the baseline with screenshots on both sides,
≤ 1.15× with them off on both sides. The 'vs none' column also sets FinRPA with screenshots against the baseline taking
none, and the summary says what the baseline's own screenshots cost it: every capture waits for Chromium to draw two
frames (bench_browser_floor), whoever takes it. Machines are shared and noisy: compare the ratios of medians measured
side by side, not absolute times.

Both sides are timed the same way: from opening the run's browser context (each run has its own, in a browser
that is already running) to closing it. The FinRPA side also claims the run, plans, journals and audits.

Wall time on a loaded machine is noisy; CPU seconds per run are steadier. The CPU columns add this process's CPU
time (FinRPA's Python side; the bench's approver runs in it for both kinds alike) and the
CPU time of every browser process under it (Chromium, its zygotes and renderers, including renderers that exited),
each measured around the run.

The evidence column is read from the last screenshot run's action events, to show the screenshots stayed complete:
actions, actions with both a before and an after screenshot (extract and wait_for have an after-shot only, native
dialogs none), distinct PNGs stored, and screenshots shared with the previous action's after-shot (same object);
then the number of PNGs the baseline's last run with screenshots wrote.

Every FinRPA run makes a new effect (a new payment reference, application start date, claim date or filing). A run
whose effect the effect ledger already knew as done would skip the portal work and time nothing: it stops the bench.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx
from bench.baseline.evidence import taking_evidence
from bench.baseline.flows import FLOWS
from bench.phases import PhaseClock, print_breakdown
from playwright.async_api import Page, async_playwright

from finrpa.agents.events import EventType
from finrpa.agents.plan import TaskStatus
from finrpa.approvals.service import approvals_transaction
from finrpa.audit.service import AuditService
from finrpa.bootstrap import App, open_app
from finrpa.browser import BrowserManager
from finrpa.browser.locate import CHROMIUM_ARGS, locate_chromium
from finrpa.bus import build_bus
from finrpa.commands.demo import BANK_PASSWORD_SECRET, seed_demo_org
from finrpa.commands.runs import start_run
from finrpa.config import Settings
from finrpa.db.engine import unit_of_work
from finrpa.identity.repository import IdentityRepository
from finrpa.identity.service import DirectoryService
from finrpa.kit.heap import freeze_startup_heap
from finrpa.runs.effects import EffectState
from finrpa.runs.evidence import ACTION_EVENT
from finrpa.runs.gate import ApprovalGate
from finrpa.runs.repository import RunRepository
from finrpa.runs.runner import RunnerOptions, RunRunner
from finrpa.runs.secrets import vault_secrets
from finrpa.sandbox.policies import policy_book
from finrpa.sandbox.securities_report import reporting_periods
from finrpa.tenancy.context import system_context

TARGET_SHOTS, TARGET_PLAIN = 1.5, 1.15
KINDS = ["base", "base shots", "shots", "plain"]  # run interleaved, in a rotating order
TEMPLATES = {
    "bank_statement": "bank_statement_download",
    "bank_payment": "bank_payment_submission",
    "insurance_application": "insurance_policy_application",
    "insurance_claim": "insurance_claim_submission",
    "securities_report": "securities_compliance_report",
    "securities_trades": "securities_trade_record_export",
}
# The statement and trades templates also read every page of the results table; the baseline must too.
PAGED = {"bank_statement": ("交易明细", "下一页"), "securities_trades": ("成交记录", "下一页")}
PAGED_V2 = {"bank_statement": ("账户交易明细", "后一页"), "securities_trades": ("成交明细", "后一页")}


def template_arguments(flow: str, base: str, params: dict[str, Any], seed: int, counter: int) -> dict[str, Any]:
    login = {"username": params["username"], "password": f"secret://{BANK_PASSWORD_SECRET}"}
    if flow == "bank_statement":
        return login | {
            "bank_url": f"{base}/bank/login",
            "account_number": params["account"],
            "start_date": params["start"],
            "end_date": params["end"],
        }
    if flow == "bank_payment":
        return login | {
            "bank_url": f"{base}/bank/login",
            "payer_account": params["payer_account"],
            "payee_name": params["payee_name"],
            "payee_account": params["payee_account"],
            "payee_bank": params["payee_bank"],
            "amount": params["amount"],
            "business_ref": f"BENCH-{counter}",
        }
    if flow == "insurance_application":
        first = params["beneficiaries"][0]
        return login | {
            "insurance_url": f"{base}/insurance/login",
            "applicant_name": params["applicant_name"],
            "id_number": params["id_number"],
            "product": params["product"],
            # a new application each run (the effect ledger knows one by ID number, product and start date)
            "effective_date": (date.fromisoformat(params["start"]) + timedelta(days=counter)).isoformat(),
            "expiry_date": (date.fromisoformat(params["end"]) + timedelta(days=counter)).isoformat(),
            "beneficiary_name": first["name"],
            "beneficiary_relation": first["relation"],
            "beneficiary_share": "100",
        }
    if flow == "insurance_claim":
        policy = policy_book(seed)[counter % 5]
        return login | {
            "insurance_url": f"{base}/insurance/login",
            "policy_number": policy.policy_no,
            "loss_date": (policy.start + timedelta(days=30 + counter)).isoformat(),  # a new claim each run
            "loss_cause": params["cause"],
            "claim_amount": params["amount"],
            "description": params["description"],
        }
    if flow == "securities_report":
        return login | {
            "securities_url": f"{base}/securities/login",
            # a new filing each run (the portal takes one per report type and period)
            "report_type": filing(counter)[0],
            "reporting_period": filing(counter)[1],
            "report_file": params["file"],
            "remarks": f"{params['remarks']} {counter}",
        }
    return login | {
        "securities_url": f"{base}/securities/login",
        "start_date": params["start"],
        "end_date": params["end"],
    }


REPORT_TYPE_LABELS = ("季度合规报告", "年度合规报告", "反洗钱工作报告", "重大事项报告")


def filing(counter: int) -> tuple[str, str]:
    """A report type and one of the sandbox's selectable quarters, different for the next 60-odd counters."""
    quarters: list[str] = [label for code, label, _ in reporting_periods(date.today()) if "Q" in code]
    index = counter % (len(quarters) * len(REPORT_TYPE_LABELS))
    return REPORT_TYPE_LABELS[index // len(quarters)], quarters[index % len(quarters)]


_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and every process under it (browsers and their renderers): the
    user+system time of each live process plus what its exited, reaped children used."""
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode()
        except OSError:
            continue  # exited meanwhile
        fields = stat[stat.rindex(")") + 2 :].split()  # the fields after "pid (comm) "
        parents[int(entry)] = int(fields[1])
        used[int(entry)] = sum(int(value) for value in fields[11:15]) / _TICKS  # utime stime cutime cstime
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        total += used.get(pid, 0.0)
        todo.extend(children.get(pid, []))
    return total


async def read_pages(page: Page, table: str, next_label: str) -> int:
    """Read the rows of every page of the results table, as the template does (its result is every row): take the
    rows' text (the portal renders them with the page, which is loaded), follow the next-page link. Returns the
    number of rows read (each page must have some)."""
    rows = 0
    while True:
        text = await page.get_by_role("table", name=table).locator("tbody").inner_text()
        if not text.strip():
            raise SystemExit(f"the baseline found no rows in {table!r} on {page.url}")
        rows += len(text.strip().splitlines())
        following = page.get_by_role("link", name=next_label, exact=True)
        if await following.count() == 0:
            return rows
        await following.click()
        await page.wait_for_load_state("domcontentloaded")


async def run_baseline(
    browser: Any, flow: str, layout: str, base: str, folder: Path, seed: int, evidence: bool = False
) -> tuple[float, float, int]:
    """One baseline run, timed like a FinRPA run: from opening its browser context (a FinRPA run opens its own)
    to closing it, in an already running browser (FinRPA's is started before its runs too). With ``evidence`` the
    script also captures the page before each action and after the last (bench/baseline/evidence.py). Returns the
    seconds, the CPU seconds and the number of screenshots written."""
    spec = FLOWS[flow]
    params = spec.params(folder, seed)
    if flow == "insurance_application":  # one beneficiary with the whole share, as template_arguments gives FinRPA
        params["beneficiaries"] = [params["beneficiaries"][0] | {"share": 100}]
    cpu, started = cpu_seconds(), time.perf_counter()
    context = await browser.new_context(accept_downloads=True, locale="zh-CN", viewport={"width": 1366, "height": 900})
    page = await context.new_page()
    paged = (PAGED_V2 if layout == "v2" else PAGED).get(flow)
    async with taking_evidence(page, folder) if evidence else contextlib.nullcontext() as shots:
        await spec.runner(layout)(page, base, params)
        if paged:
            await read_pages(page, *paged)
    await context.close()
    elapsed, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    return elapsed, cpu, shots.taken if shots is not None else 0


@dataclass(frozen=True)
class Evidence:
    """What a run's action events say about its screenshots (read after the run, outside the timing)."""

    actions: int
    both: int  # actions whose row has a before and an after screenshot
    stored: int  # distinct PNG objects written
    shared: int  # screenshots that are an earlier action's after-shot (same key and hash)
    approvals: int = 0  # approval requests the run made
    repeated: int = 0  # effects the ledger found already done (a reused business id: the run skipped its work)


def effects_found_done(events: Sequence[Any]) -> int:
    """How many of a run's effects the ledger already knew as done when the run began them (the run then skips
    the portal work, so its time measures nothing). A new effect's first event says ``started``."""
    first_states: dict[str, str] = {}
    for event in events:
        if event.type == EventType.EFFECT:
            first_states.setdefault(event.payload["key"], event.payload["state"])
    return sum(state == EffectState.SUCCEEDED for state in first_states.values())


async def run_evidence(app: App, org_id: str, run_id: str) -> Evidence:
    with system_context("bench: count the run's evidence", org_id=org_id):
        async with unit_of_work(app.database.sessions) as session:
            every = await RunRepository(session).events(run_id)
    events = [e for e in every if e.type == ACTION_EVENT]
    approvals = sum(e.type == EventType.APPROVAL_REQUESTED for e in every)
    keys: set[str] = set()
    both = shared = 0
    for event in events:
        shots = [event.payload.get(f"screenshot_{phase}") for phase in ("before", "after")]
        both += all(shots)
        keys.update(shot["key"] for shot in shots if shot)
        shared += sum(event.payload.get(f"screenshot_{phase}_shared_from") is not None for phase in ("before", "after"))
    return Evidence(len(events), both, len(keys), shared, approvals, effects_found_done(every))


async def run_finrpa(
    app: App, org: tuple[str, str, str], runner: RunRunner, flow: str, base: str, folder: Path, seed: int, counter: int
) -> tuple[float, float, Evidence]:
    org_id, dept_id, operator_id = org
    params = FLOWS[flow].params(folder, seed)
    arguments = template_arguments(flow, base, params, seed, counter)
    run_id = await start_run(app, org_id, TEMPLATES[flow], arguments, created_by=operator_id, dept_id=dept_id)
    cpu, started = cpu_seconds(), time.perf_counter()
    state = await runner.execute(run_id, org_id)
    elapsed, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    if state.status is not TaskStatus.COMPLETED:
        raise SystemExit(f"{flow}: FinRPA run {run_id} ended {state.status.value}: {state.last_error}")
    evidence = await run_evidence(app, org_id, run_id)
    if evidence.repeated:
        raise SystemExit(
            f"{flow}: FinRPA run {run_id} found its effect already done and skipped it, so its time measures "
            f"nothing; template_arguments must give every run (counter {counter}) a new business id"
        )
    return elapsed, cpu, evidence


async def prepare(settings: Settings) -> tuple[str, str, str]:
    """The demo organisation (department, operator, approvers) with the sandbox password in its vault."""
    async with open_app(settings, auto_migrate=True) as app:
        demo = await seed_demo_org(app)
        with system_context("bench: find the operator", org_id=demo.org_id):
            async with unit_of_work(app.database.sessions) as session:
                operator = await IdentityRepository(session).user_by_username(demo.org_id, "operator")
                assert operator is not None
                return demo.org_id, demo.dept_id, operator.id


SAFETY_POLL_S = 1.0  # the approver also looks this often while a run executes, should a request not announce itself


def announce_approval_waits() -> asyncio.Event:
    """An event set whenever a run starts waiting for an approval (its request committed): the bench's stand-in for
    the notification that brings a person to the approvals page. Wrapped in place for the bench's lifetime."""
    requested = asyncio.Event()
    original = ApprovalGate._wait

    async def waiting(gate: ApprovalGate, approval_id: str, keep_alive: Any) -> Any:
        requested.set()
        return await original(gate, approval_id, keep_alive)

    ApprovalGate._wait = waiting
    return requested


async def approve_everything(
    app: App, org_id: str, stop: asyncio.Event, active: asyncio.Event, requested: asyncio.Event
) -> None:
    """An approver of the department who approves each request as soon as it is announced (payments need one, and
    the insurance application over 1,000,000 of cover and the claim payout are high risk). It does not poll the
    database while runs execute, not even as one starts (only every SAFETY_POLL_S as a safety net), with its
    principal loaded once: the bench's stand-in for a person in another process should not take this process's
    CPU from the runs it measures, and a person's reaction time is no part of FinRPA's."""
    audit = AuditService.from_settings(app.settings)
    bus = build_bus(app.settings)
    with system_context("bench: approver", org_id=org_id):
        async with unit_of_work(app.database.sessions) as session:
            user = await IdentityRepository(session).user_by_username(org_id, "approver")
            assert user is not None
            principal = await DirectoryService(session, app.settings).load_principal(user)
    while not stop.is_set():
        if not active.is_set():
            await _first(active.wait(), stop.wait())
            continue
        # A run that just started has asked for nothing yet: the approver looks when a request is announced (or
        # after SAFETY_POLL_S), not at once, which would hold this process while the run opens its browser.
        await _first(requested.wait(), stop.wait(), timeout_s=SAFETY_POLL_S)
        if stop.is_set():
            break
        if not active.is_set() and not requested.is_set():
            continue  # the run ended meanwhile with nothing asked: nothing to look at (the next may be the baseline)
        requested.clear()
        with system_context("bench: approver", org_id=org_id):
            async with approvals_transaction(app.database.sessions, app.settings, audit=audit, bus=bus) as service:
                for approval in await service.pending_for(principal):
                    await service.decide(approval.id, principal, True, comment="bench")


async def _first(*waits: Any, timeout_s: float | None = None) -> None:
    """Return when the first of ``waits`` is done (or after ``timeout_s``); cancel the others."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    await asyncio.wait(tasks, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()


class PortalProcess:
    """The sandbox portals in a process of their own (``finrpa sandbox``), as a real portal runs elsewhere: in this
    process its request handling would compete for the interpreter with the FinRPA run being measured, and not
    with the baseline (whose Python side is idle)."""

    def __init__(self, layout: str, seed: int = 42, latency_ms: int = 0) -> None:
        self.layout, self.seed, self.latency_ms = layout, seed, latency_ms
        self.base_url = ""
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> PortalProcess:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        command = [sys.executable, "-m", "finrpa.cli", "sandbox", "--port", str(port), "--layout", self.layout]
        command += ["--seed", str(self.seed), "--latency-ms", str(self.latency_ms)]
        self._process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        self.base_url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{self.base_url}/bank/login", timeout=1).raise_for_status()
                return self
            except httpx.HTTPError:
                if self._process.poll() is not None or time.monotonic() > deadline:
                    self.__exit__()
                    raise SystemExit(f"the sandbox did not start on {self.base_url}") from None
                time.sleep(0.1)

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=10)
            self._process = None


async def bench(
    layout: str, repeat: int, flows: list[str], breakdown: bool = False, latency_ms: int = 0, warmup: int = 1
) -> None:
    chromium = locate_chromium()
    assert chromium is not None, "Chromium is needed"
    with tempfile.TemporaryDirectory() as tmp, PortalProcess(layout, latency_ms=latency_ms) as sandbox:
        root = Path(tmp)
        (root / "var" / "uploads").mkdir(parents=True)
        settings = Settings(data_dir=root / "var")
        org_id, dept_id, operator_id = await prepare(settings)
        async with open_app(settings) as app, async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=chromium.path, args=list(CHROMIUM_ARGS))
            manager = BrowserManager()
            await manager.start()
            audit = AuditService.from_settings(settings)
            secrets = vault_secrets(app.database.sessions, settings, audit)
            runners = {
                shots: RunRunner(
                    settings,
                    app.database,
                    audit=audit,
                    secrets=secrets,
                    manager=manager,
                    options=RunnerOptions(screenshots=shots),
                )
                for shots in (True, False)
            }
            freeze_startup_heap()  # as a worker does once it is set up (finrpa.kit.heap)
            stop, active = asyncio.Event(), asyncio.Event()
            approver = asyncio.create_task(approve_everything(app, org_id, stop, active, announce_approval_waits()))
            print(
                f"layout {layout}, portal latency {latency_ms} ms per request, {repeat} interleaved repeats per flow "
                f"after {warmup} unmeasured (median seconds; ratio to the baseline taking the same screenshots or none)"
            )
            print(f"targets: with screenshots <= {TARGET_SHOTS}x, without <= {TARGET_PLAIN}x")
            print(
                f"{'':<24}{'-- without screenshots --':^28}{'-- with screenshots --':^38}"
                f"{'-- CPU s, without --':^26}{'-- CPU s, with --':^26}"
            )
            print(
                f"{'flow':<24}{'baseline':>10}{'FinRPA':>10}{'ratio':>8}{'baseline':>10}{'FinRPA':>10}{'ratio':>8}"
                f"{'vs none':>10}{'baseline':>10}{'FinRPA':>8}{'ratio':>8}{'baseline':>10}{'FinRPA':>8}{'ratio':>8}"
                "  evidence: FinRPA actions, with before+after, PNGs stored, shared; baseline PNGs"
            )
            counter = 0
            clock = PhaseClock() if breakdown else None
            breakdowns: list[tuple[str, str, list[dict[str, float]], float, float]] = []
            summary: list[tuple[float, float, float, float]] = []
            cpu_summary: list[tuple[float, float]] = []
            spreads: list[tuple[str, list[tuple[str, list[float]]]]] = []
            for flow in flows:
                times: dict[str, list[float]] = {kind: [] for kind in KINDS}
                cpus: dict[str, list[float]] = {kind: [] for kind in KINDS}
                evidence: list[Evidence] = []
                baseline_pngs = 0
                phases: dict[str, list[dict[str, float]]] = {"shots": [], "plain": []}
                for attempt in range(-warmup, repeat):  # negative: warm-up rounds, not counted
                    order = KINDS[attempt % len(KINDS) :] + KINDS[: attempt % len(KINDS)]
                    for kind in order:
                        counter += 1  # a flow may be named twice in --flows (to see whether it slows down later)
                        folder = root / "work" / f"{flow}-{kind}-{counter}"
                        folder.mkdir(parents=True)
                        if flow == "securities_report":
                            folder = root / "var" / "uploads" / f"{flow}-{kind}-{counter}"
                            folder.mkdir(parents=True)
                        if kind in ("base", "base shots"):
                            elapsed, cpu, baseline_pngs = await run_baseline(
                                browser, flow, layout, sandbox.base_url, folder, sandbox.seed, kind == "base shots"
                            )
                            if attempt >= 0:
                                times[kind].append(elapsed)
                                cpus[kind].append(cpu)
                            continue
                        runner = runners[kind == "shots"]
                        active.set()
                        if clock is not None and attempt >= 0:
                            clock.start()
                        elapsed, cpu, seen = await run_finrpa(
                            app,
                            (org_id, dept_id, operator_id),
                            runner,
                            flow,
                            sandbox.base_url,
                            folder,
                            sandbox.seed,
                            counter,
                        )
                        active.clear()
                        if attempt < 0:
                            continue
                        if clock is not None:
                            phases[kind].append(clock.stop())
                        times[kind].append(elapsed)
                        cpus[kind].append(cpu)
                        if kind == "shots":
                            evidence.append(seen)
                base, base_shots, shots, plain = (statistics.median(times[k]) for k in KINDS)
                if clock is not None:
                    breakdowns += [
                        (flow, "with screenshots", phases["shots"], shots, base_shots),
                        (flow, "without", phases["plain"], plain, base),
                    ]
                cpu_base, cpu_base_shots, cpu_shots, cpu_plain = (statistics.median(cpus[k]) for k in KINDS)
                summary.append((shots / base_shots, plain / base, shots / base, base_shots / base))
                spreads.append(
                    (
                        flow,
                        [
                            (kind, [run / b for run, b in zip(times[kind], times[against], strict=True)])
                            for kind, against in (("shots", "base shots"), ("plain", "base"))
                        ],
                    )
                )
                cpu_summary.append((cpu_shots / cpu_base_shots, cpu_plain / cpu_base))
                last = evidence[-1]
                print(
                    f"{flow:<24}{base:>10.2f}{plain:>10.2f}{plain / base:>7.2f}x"
                    f"{base_shots:>10.2f}{shots:>10.2f}{shots / base_shots:>7.2f}x{shots / base:>9.2f}x"
                    f"{cpu_base:>10.2f}{cpu_plain:>8.2f}{cpu_plain / cpu_base:>7.2f}x"
                    f"{cpu_base_shots:>10.2f}{cpu_shots:>8.2f}{cpu_shots / cpu_base_shots:>7.2f}x"
                    f"  {last.actions}, {last.both}, {last.stored}, {last.shared}; {baseline_pngs}"
                )
            worst_shots, worst_plain, worst_none, _ = (max(ratios) for ratios in zip(*summary, strict=True))
            verdict = {True: "meets", False: "misses"}
            print(
                f"worst ratio with screenshots {worst_shots:.2f}x ({verdict[worst_shots <= TARGET_SHOTS]} "
                f"{TARGET_SHOTS}x), without {worst_plain:.2f}x ({verdict[worst_plain <= TARGET_PLAIN]} {TARGET_PLAIN}x)"
            )
            own = [ratio for *_, ratio in summary]
            print(
                f"against the baseline taking no screenshots ('vs none'), FinRPA with them is at worst "
                f"{worst_none:.2f}x; the baseline's own screenshots make it {min(own):.2f}-{max(own):.2f}x its time "
                "without"
            )
            cpu_shots_worst, cpu_plain_worst = (max(ratios) for ratios in zip(*cpu_summary, strict=True))
            print(
                f"CPU seconds (this process + browsers), worst ratio with screenshots {cpu_shots_worst:.2f}x, "
                f"without {cpu_plain_worst:.2f}x"
            )
            print("Spread: each round's own ratios (FinRPA / the baseline run next to it), lowest to highest")
            for flow_name, per_round in spreads:
                print(f"  {flow_name:<24}" + "  ".join(f"{kind} {min(r):.2f}-{max(r):.2f}x" for kind, r in per_round))
            if breakdowns:
                print("Where FinRPA's time goes (median seconds per run inside each phase; phases nest):")
                for flow_name, kind, runs, total, baseline in breakdowns:
                    print_breakdown(flow_name, kind, runs, total, baseline)
            stop.set()
            await approver
            await manager.close()
            await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layout", choices=("v1", "v2"), default="v1")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--warmup",
        type=int,
        default=1,
        help="unmeasured rounds of each flow first (caches built as on a running worker)",
    )
    parser.add_argument("--flows", default=",".join(TEMPLATES))
    parser.add_argument("--breakdown", action="store_true", help="also print where FinRPA's time goes, by phase")
    parser.add_argument("--latency-ms", type=int, default=0, help="the sandbox's delay for every page and form request")
    args = parser.parse_args()
    if args.latency_ms < 0 or args.warmup < 0 or args.repeat < 1:
        raise SystemExit("--latency-ms and --warmup must be 0 or more, --repeat at least 1")
    asyncio.run(bench(args.layout, args.repeat, args.flows.split(","), args.breakdown, args.latency_ms, args.warmup))


if __name__ == "__main__":
    main()
