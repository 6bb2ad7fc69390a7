"""Run runs in this process: one Chromium for the process, one isolated browser context per run.

``RunRunner.execute(run_id, org_id)`` claims the run (fencing any previous holder), rebuilds its state from the
event log, restores the browser session from the checkpoint when resuming, and drives the coordinator until
the run completes, fails, or needs a person. The durable engine (:mod:`finrpa.runs.durable`) calls the same
method from its workflow, so embedded and production runs share one code path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession

from finrpa.agents.coordinator import AgentCoordinator, Backoff, SubtaskExecutor
from finrpa.agents.plan import CoordinationState, SkillCall, TaskStatus
from finrpa.agents.planner import ReplanPlanner
from finrpa.audit.service import AuditService
from finrpa.browser import BrowserManager, RunBrowserConfig
from finrpa.bus import build_bus
from finrpa.config import Settings
from finrpa.db.engine import unit_of_work
from finrpa.kit.crypto import derive_key, unseal
from finrpa.llm import CallContext
from finrpa.policy.token_store import DatabaseTokenUseStore
from finrpa.policy.tokens import CapabilityTokens
from finrpa.risk.service import RiskAssessor
from finrpa.runs.browser_session import BrowserSession, restored_storage
from finrpa.runs.evidence import EvidenceRecorder
from finrpa.runs.execution import RunExecutor, RunIdentity, open_run_policy
from finrpa.runs.gate import ApprovalGate
from finrpa.runs.goal_runs import GoalServices, goal_executor, is_goal_plan
from finrpa.runs.journal import claim
from finrpa.runs.journal_sql import SqlJournal
from finrpa.runs.lanes import BrowserLanes
from finrpa.runs.models import Run
from finrpa.runs.repository import RunRepository
from finrpa.runs.service import load_state
from finrpa.skills.context import SecretResolver
from finrpa.tenancy.context import system_context
from finrpa.tenancy.database import TenantDatabase
from finrpa.workflows.loader import get_template

T = TypeVar("T")
SecretsFactory = Callable[[str, str], SecretResolver | None]  # (org_id, run_id) -> resolver


@dataclass
class RunnerOptions:
    screenshots: bool = True
    wait_s: float = 10.0
    backoff: Backoff = field(default_factory=Backoff)
    worker_id: str = "embedded"


class RunRunner:
    def __init__(
        self,
        settings: Settings,
        database: TenantDatabase,
        *,
        audit: AuditService | None = None,
        secrets: SecretsFactory | None = None,
        options: RunnerOptions | None = None,
        manager: BrowserManager | None = None,
    ) -> None:
        self.settings = settings
        self.database = database
        self.audit = audit or AuditService.from_settings(settings)
        self.secrets = secrets
        self.options = options or RunnerOptions()
        self.manager = manager or BrowserManager(chromium_path=settings.chromium_path, headless=settings.headless)
        self._owns_manager = manager is None
        self._session_key = derive_key(settings.key("master_key"), "finrpa run browser session")
        self.bus = build_bus(settings)
        self.risk = RiskAssessor()
        self.tokens = CapabilityTokens.from_settings(settings, DatabaseTokenUseStore(database.sessions))
        self._goal_services: GoalServices | None = None  # built for the first goal run

    async def start(self) -> None:
        if self._owns_manager:
            await self.manager.start()

    async def close(self) -> None:
        if self._goal_services is not None:
            await self._goal_services.aclose()
            self._goal_services = None
        if self._owns_manager:
            await self.manager.close()

    def goal_services(self) -> GoalServices:
        if self._goal_services is None:
            self._goal_services = GoalServices.from_settings(self.settings, self.database)
        return self._goal_services

    async def __aenter__(self) -> RunRunner:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def transaction(self, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
        async with unit_of_work(self.database.sessions) as session:
            return await work(session)

    def run_folder(self, run_id: str) -> Path:
        return (self.settings.data_dir / "runs" / run_id).resolve()

    async def execute(self, run_id: str, org_id: str) -> CoordinationState:
        """Claim the run, rebuild its state from the log, and drive it until it ends or needs a person."""
        with system_context(f"execute run {run_id}", org_id=org_id):
            worker = self.options.worker_id
            token, loaded = await self.transaction(lambda session: _claim_and_load(session, run_id, worker))
            if not runnable(loaded.state):
                return loaded.state
            prepared = await self._prepare(loaded, token)
            lanes = BrowserLanes(prepared.executor, prepared.journal)  # parallel branches: a browser context each
            coordinator = AgentCoordinator(
                loaded.state,
                lanes,
                prepared.journal,
                planner=prepared.planner,
                backoff=self.options.backoff,
                parallel=lanes.parallel,
            )
            try:
                return await coordinator.run()
            finally:
                await lanes.close()
                await prepared.browser.close()

    def _gate(self, run: Run) -> ApprovalGate:
        domain = get_template(run.template_id).domain if run.template_id else "common"
        return ApprovalGate(
            self.settings,
            self.database.sessions,
            self.audit,
            self.bus,
            self.risk,
            domain=domain,
            keepalive_s=self.settings.approval_keepalive_s,
        )

    async def claim(self, run_id: str) -> int:
        """Take the run over; any earlier holder is fenced off from now on."""
        return await self.transaction(lambda session: claim(session, run_id, self.options.worker_id))

    async def load_state(self, run_id: str) -> CoordinationState:
        return await self.transaction(lambda session: load_state(session, run_id))

    async def prepare(self, run_id: str, token: int) -> PreparedRun:
        """The executor, journal and browser of one run, restored from its checkpoint."""
        return await self._prepare(await self.transaction(lambda session: _load(session, run_id)), token)

    async def _prepare(self, loaded: LoadedRun, token: int) -> PreparedRun:
        """The browser starts opening first (:meth:`BrowserSession.warm_up`), while the run's policy is read and its
        manifests compiled; it is closed again if that fails."""
        run, sealed, url = loaded.run, loaded.sealed_storage, loaded.url
        recorder = EvidenceRecorder(org_id=run.org_id, run_id=run.id, screenshots=self.audit)
        storage = unseal(self._session_key, sealed, run.id.encode()).decode() if sealed else None
        portal_urls = _portal_urls(run)
        browser = BrowserSession(
            self.manager,
            RunBrowserConfig(
                run_id=run.id,
                downloads_dir=self.run_folder(run.id) / "downloads",
                portal_urls=portal_urls,
                storage_state=restored_storage(storage),
            ),
            recorder,
            screenshots=self.options.screenshots,
            resume_url=url,
        )
        browser.warm_up()
        try:
            await browser.tab_requested()  # reading the policy holds this process: the browser starts first
            return await self._assemble(loaded, token, browser, recorder, portal_urls)
        except BaseException:
            await browser.close()
            raise

    async def _assemble(
        self, loaded: LoadedRun, token: int, browser: BrowserSession, recorder: EvidenceRecorder, portal_urls: list[str]
    ) -> PreparedRun:
        run, state, sealed, url = loaded.run, loaded.state, loaded.sealed_storage, loaded.url
        hosts = frozenset(host for host in (urlsplit(portal).hostname for portal in portal_urls) if host)
        policy = await self.transaction(
            lambda session: open_run_policy(
                session, self.settings, self.tokens, run, state, hosts=hosts, risk=self.risk, fencing_token=token
            )
        )
        identity = RunIdentity(run.id, run.org_id, run.dept_id, run.bl_id, run.created_by)
        folder = self.run_folder(run.id)
        secrets = self.secrets(run.org_id, run.id) if self.secrets else None
        executor = RunExecutor(
            identity,
            browser,
            recorder,
            self.transaction,
            artifacts_dir=folder,
            fencing_token=token,
            secrets=secrets,
            upload_roots=(self.settings.data_dir / "uploads",),
            wait_s=self.options.wait_s,
            relogin=_login_call(state),
            gate=self._gate(run),
            policy=policy,
        )
        journal = SqlJournal(
            identity,
            self.transaction,
            browser,
            self.audit,
            fencing_token=token,
            session_key=self._session_key,
            last_storage=sealed,
            last_url=url,
        )
        if not is_goal_plan(state.plan):
            return PreparedRun(executor=executor, journal=journal, browser=browser)
        context = CallContext(run.org_id, dept_id=run.dept_id, template_id=run.template_id, run_id=run.id)
        goal = goal_executor(self.goal_services(), state, call_context=context, arguments=run.arguments,
                             steps=executor, browser=browser, recorder=recorder, secrets=secrets)  # fmt: skip
        return PreparedRun(executor=goal, journal=journal, browser=browser, planner=goal.planner)


@dataclass(frozen=True)
class LoadedRun:
    """What a run resumes from: its row, its state replayed from the log, and its last checkpoint's sealed
    browser session and URL."""

    run: Run
    state: CoordinationState
    sealed_storage: str | None
    url: str | None


async def _load(session: AsyncSession, run_id: str) -> LoadedRun:
    repository = RunRepository(session)
    checkpoint = await repository.checkpoint(run_id)
    run = await repository.get(run_id)
    state = await load_state(session, run_id)
    return LoadedRun(
        run, state, checkpoint.storage_state if checkpoint else None, checkpoint.url if checkpoint else None
    )


async def _claim_and_load(session: AsyncSession, run_id: str, worker_id: str) -> tuple[int, LoadedRun]:
    """Claim the run and read what it resumes from, in one transaction."""
    token = await claim(session, run_id, worker_id)
    return token, await _load(session, run_id)


@dataclass
class PreparedRun:
    executor: SubtaskExecutor
    journal: SqlJournal
    browser: BrowserSession
    planner: ReplanPlanner | None = None  # goal runs replan with the LLM planner


def runnable(state: CoordinationState) -> bool:
    """False for runs that ended or wait for a person or an approval."""
    return not (state.status.is_final or state.status in (TaskStatus.NEEDS_HUMAN, TaskStatus.WAITING_APPROVAL))


def _portal_urls(run: Run) -> list[str]:
    if not run.template_id:
        return [str(value) for value in run.arguments.values() if str(value).startswith(("http://", "https://"))]
    template = get_template(run.template_id)
    return [str(run.arguments[name]) for name in template.portal_params if name in run.arguments]


def _login_call(state: CoordinationState) -> SkillCall | None:
    for subtask in state.plan.subtasks:
        if subtask.skill_call is not None and subtask.skill_call.skill == "LoginSkill":
            return subtask.skill_call
    return None


def describe_outcome(state: CoordinationState) -> dict[str, Any]:
    return {"status": state.status.value, "error": state.last_error, "completed": len(state.completed_subtasks)}
