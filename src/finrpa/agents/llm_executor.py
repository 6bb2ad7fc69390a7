"""LLMSubtaskExecutor: runs a subtask that has a goal and no skill as a bounded LLM loop (§C5, §C7).

Each step: observe the page with the verified controller (once its frames have loaded) → if the completion
condition holds (checked in code: URL, text, element, table, download) the subtask succeeded → on the first
observation of a page, try the action cache (every cached action re-resolved by fingerprint and verified on
the live page; a failed verification evicts the entry, counts a miss with its reason and falls back to the
LLM) → otherwise route
the call by the live page's features (``ModelRouter``) and ask for ONE action naming the snapshot and an
element ref (the page is fenced as untrusted data, secrets appear only as ``{{secret:name}}``) → validate
it in code (known ref, fitting element, allowed kind, values only from the inputs) → the optional gate
(policy, risk, approval) → act through the controller (a stale or ambiguous target is refused: re-observe)
→ remember the verified decision for the cache. The router learns each call's outcome, so a page where the
light tier keeps failing is promoted. After ``max_steps`` steps, or when the LLM gives no usable answer or
gives up, the subtask ends in NEEDS_HUMAN with the raw LLM output and every error kept. Nothing raises for
LLM or page faults. Skill subtasks are passed to the ``skills`` executor.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from finrpa.agents.completion import CompletionCondition, condition_met
from finrpa.agents.coordinator import ExecutionOutcome, SubtaskExecutor
from finrpa.agents.decision_memory import DecisionMemory
from finrpa.agents.events import EventType
from finrpa.agents.llm_actions import (
    BROWSER_ACTION_KINDS,
    ActionClearance,
    ActionRequest,
    PlannedAction,
    StepInputs,
    TypedValue,
)
from finrpa.agents.llm_planner import AGENT_PROMPTS
from finrpa.agents.llm_proposals import ProposalRefused, ProposedAction, validate_proposal
from finrpa.agents.page_key import page_cache_hash
from finrpa.agents.plan import CoordinationState, SubTask
from finrpa.browser import (
    ActionResult,
    BrowserError,
    Controller,
    DownloadedFile,
    EgressDeniedError,
    InvalidActionError,
    PageSnapshot,
    SecretText,
    StaleSnapshotError,
    TargetRefusedError,
    render_snapshot,
)
from finrpa.exceptions import ConfigurationError, FinRPAError
from finrpa.llm import (
    ActionCache,
    CallContext,
    LLMCallResult,
    LLMClient,
    ModelRouter,
    PageFeatures,
    PromptLibrary,
    RoutingDecision,
    Tier,
    Untrusted,
    page_signature,
)
from finrpa.llm.errors import LLM_NOT_CONFIGURED_HELP
from finrpa.llm.page_features import measure_page_features
from finrpa.llm.prompts import PromptValue
from finrpa.runs.repository import NewEvent
from finrpa.skills.context import SecretResolver

NEXT_ACTION_PROMPT_ID = "agents.next_action"
_NO_FEATURES = PageFeatures(
    element_count=0, iframe_depth=0, has_shadow_dom=False, form_field_count=0, dynamic_content=False
)
_FULL_TEXT = "() => document.body ? document.body.innerText : ''"
_RAW_CHARS = 2000

ControllerSource = Callable[[], Awaitable[Controller]]


@dataclass(frozen=True)
class LoopOptions:
    """Bounds of the loop: a subtask's own ``max_steps`` is used up to ``max_steps_cap``."""

    max_steps: int = 20
    max_steps_cap: int = 60
    token_budget: int = 2000
    history_lines: int = 12
    kept_raw_outputs: int = 3
    measure_timeout_s: float = 5.0
    frames_load_timeout_s: float = 10.0  # how long a page's frames may take to load before it is observed anyway


class EvidenceDrain(Protocol):
    """The run's action recorder (``finrpa.runs.evidence.EvidenceRecorder``): events to commit with the step."""

    subtask_id: str | None

    def drain(self) -> list[NewEvent]: ...


class ActionGate(Protocol):
    """Manifest, risk, policy, approval and effect ledger before an action acts (wired by the run layer).

    ``review`` answers before anything is done: proceed (the loop acts, then reports with ``settle``), done
    before (the ledger shows this exact action already succeeded: it is not repeated), or refused — the
    subtask then fails with the reason and nothing is clicked. ``settle`` returns the events of the outcome."""

    async def review(self, request: ActionRequest) -> ActionClearance: ...

    async def settle(
        self, clearance: ActionClearance, *, ok: bool, may_have_acted: bool, detail: str
    ) -> list[NewEvent]: ...


class VaultUnavailableError(ConfigurationError):
    code = "vault_unavailable"


@dataclass(frozen=True)
class _ActFailure:
    code: str
    message: str
    may_have_acted: bool = False
    fatal: bool = False  # trying again cannot help (e.g. the vault refused the secret)
    ends: ExecutionOutcome | None = None  # refused by the gate: the subtask ends with this outcome


class LLMSubtaskExecutor:
    """The coordinator's SubtaskExecutor for free-form subtasks; skill subtasks go to ``skills``."""

    def __init__(
        self,
        client: LLMClient,
        router: ModelRouter,
        call_context: CallContext,
        controller: ControllerSource,
        *,
        allowed_actions: Collection[str],
        cache: ActionCache | None = None,
        secrets: SecretResolver | None = None,
        skills: SubtaskExecutor | None = None,
        evidence: EvidenceDrain | None = None,
        gate: ActionGate | None = None,
        options: LoopOptions | None = None,
        prompts: PromptLibrary = AGENT_PROMPTS,
    ) -> None:
        unknown = set(allowed_actions) - set(BROWSER_ACTION_KINDS)
        if unknown:
            raise ValueError(f"Unknown browser action kinds {sorted(unknown)}; use {', '.join(BROWSER_ACTION_KINDS)}.")
        self.client = client
        self.router = router
        self.call_context = call_context
        self.controller = controller
        self.allowed_actions = frozenset(allowed_actions)
        self.cache = cache
        self.secrets = secrets
        self.skills = skills
        self.evidence = evidence
        self.gate = gate
        self.options = options or LoopOptions()
        self.prompt = prompts.load(NEXT_ACTION_PROMPT_ID)

    async def execute(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        if subtask.skill_call is not None:
            if self.skills is None:
                return ExecutionOutcome(
                    success=False,
                    error_code="no_skill_executor",
                    error="This executor runs browser goals only; give it a skill executor.",
                )
            return await self.skills.execute(state, subtask)
        return await self.run_goal(subtask)

    async def compensate(self, state: CoordinationState, subtask: SubTask) -> ExecutionOutcome:
        if subtask.skill_call is not None and self.skills is not None:
            return await self.skills.compensate(state, subtask)
        return ExecutionOutcome(
            success=False,
            error_code="not_compensable",
            error="A browser goal has no compensation; a person must undo its effect by hand.",
        )

    async def run_goal(self, subtask: SubTask) -> ExecutionOutcome:
        """Run the loop for one free-form subtask until it completes, needs a person, or runs out of steps."""
        controller = await self.controller()
        await controller.settled()  # actions taken before this subtask (e.g. returning to its start) are recorded
        if self.evidence is not None:
            self.evidence.subtask_id = subtask.subtask_id
        return await _GoalLoop(self, subtask, controller).run()

    def tier_of(self, model: str) -> Tier:
        """The tier whose configured model is ``model`` (for counting cache hits), else STANDARD."""
        for tier in Tier:
            with contextlib.suppress(FinRPAError):
                if self.client.model_for(tier).model == model:
                    return tier
        return Tier.STANDARD


@dataclass
class _GoalLoop:
    """The state of one run of the loop over one subtask."""

    x: LLMSubtaskExecutor
    subtask: SubTask
    controller: Controller
    inputs: StepInputs = field(init=False)
    condition: CompletionCondition = field(init=False)
    memory: DecisionMemory = field(init=False)
    history: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    raw_outputs: list[str] = field(default_factory=list)
    events: list[NewEvent] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)
    secrets: dict[str, SecretText] = field(default_factory=dict)
    decisions: int = 0
    hits: int = 0
    step: int = 0
    features: PageFeatures = field(default_factory=lambda: _NO_FEATURES)
    download_base: dict[str, int] = field(default_factory=dict)
    typed: dict[str, TypedValue] = field(default_factory=dict)  # field -> what this subtask typed or chose there
    snapshot: PageSnapshot | None = None  # the page the next action acts on
    ended: ExecutionOutcome | None = None  # set when the gate refused a (cached) action: the subtask ends

    def __post_init__(self) -> None:
        self.inputs = StepInputs.of(self.subtask, self.x.allowed_actions, self.x.options.max_steps)
        self.condition = CompletionCondition.parse(self.subtask.completion_condition)
        org = self.x.call_context.org_id
        self.memory = DecisionMemory(self.x.cache, org, self.subtask.goal, self.x.prompt)
        self.download_base = {tab_id: len(tab.downloads) for tab_id, tab in self.controller.run.tabs.items()}

    async def run(self) -> ExecutionOutcome:
        budget = min(self.inputs.max_steps, self.x.options.max_steps_cap)
        snapshot: PageSnapshot | None = None
        for self.step in range(1, budget + 1):
            await self.frames_loaded()
            snapshot = await self.controller.observe()
            await self.memory.enter(snapshot, self.known_secrets())
            met = await condition_met(
                self.condition, snapshot, downloads=self.downloads(), full_text=partial(self.full_text, snapshot)
            )
            if met:
                return await self.succeeded(snapshot, "code")
            self.snapshot = snapshot
            if await self.replay_cached(snapshot):
                if self.ended is not None:
                    return self.ended
                continue
            finished = await self.decide(snapshot)
            if finished is not None:
                return finished
        last = "; ".join(self.errors[-3:]) or "none"
        return self.needs_human(
            f"The goal was not reached within {budget} steps (last errors: {last}); finish it by hand or retry.",
            "llm_step_budget_exhausted",
            snapshot,
        )

    async def frames_loaded(self) -> None:
        """Before observing a page with frames, wait (bounded) for its load event, which waits for every frame.

        The controller observes a page once its own document is parsed, when a frame may still be loading (the
        sandbox's layout v2 has its statement form in one). Shown the half-loaded page, the LLM decides on a form it
        cannot see (reopens the page, or gives up on a field), and the action cache keeps that decision under the
        half-loaded page's key and replays it on every such visit until the step budget is spent. It depends on
        how fast frames load, so it shows on a busy machine."""
        run = self.controller.run
        tab = run.tabs.get(run.active_tab_id) if run.tabs else None
        if tab is None or tab.pending_dialog is not None or tab.page.is_closed() or len(tab.page.frames) < 2:
            return
        with contextlib.suppress(PlaywrightError):  # not loaded in time: observe it as it is
            await tab.page.wait_for_load_state("load", timeout=self.x.options.frames_load_timeout_s * 1000)

    # -- the action cache ---------------------------------------------------------------------------------
    async def replay_cached(self, snapshot: PageSnapshot) -> bool:
        """Replay a cached decision for this page; True when something was acted on (observe again).

        Only code can say "already done" without the LLM, so with a judged condition the cache is used on the
        subtask's first page only: a replay must never carry the page past a goal that was already reached.
        """
        if not self.memory.should_look_up or (self.step > 1 and not self.condition.checkable_in_code):
            return False
        page = self.page_of(snapshot)
        page_hash = None
        if page is not None and not self.dialog_open(snapshot):
            page_hash = await page_cache_hash(page)
        lookup = await self.memory.look_up(page_hash)
        if lookup is None or lookup.decision is None or self.x.cache is None:
            return False
        acted = 0
        for cached in lookup.decision.actions:
            planned = PlannedAction.from_cached(cached)
            failure = self.permits(planned) or await self.act(planned)
            if failure is not None and failure.ends is not None:
                self.ended = failure.ends
                return True
            if failure is not None:
                await self.x.cache.record_verification(self.org, lookup.key, ok=False, reason=failure.code)
                self.memory.replayed(acted=acted > 0 or failure.may_have_acted)
                self.note(f"A remembered decision for this page did not verify ({failure.message}); deciding afresh.")
                self.events.append(self.cache_event(False, failure.code))
                return acted > 0 or failure.may_have_acted
            acted += 1
        await self.x.cache.record_verification(self.org, lookup.key, ok=True)
        tier = self.x.tier_of(lookup.decision.model)
        await self.x.client.record_cache_hit(self.x.prompt, tier=tier, context=self.x.call_context)
        self.memory.replayed(acted=True)
        self.hits += 1
        self.events.append(self.cache_event(True, None, actions=acted))
        return True

    def permits(self, planned: PlannedAction) -> _ActFailure | None:
        """A cached action must still be allowed here, and its placeholders must name this step's inputs."""
        if planned.kind not in self.inputs.allowed_actions:
            return _ActFailure("action_not_allowed", f"{planned.kind} is not allowed in this step")
        value = planned.value
        if value is not None and value.name not in (self.inputs.secrets if value.secret else self.inputs.values):
            return _ActFailure("missing_input", f"this step has no input {value.placeholder}")
        return None

    # -- asking the LLM -------------------------------------------------------------------------------------
    async def decide(self, snapshot: PageSnapshot) -> ExecutionOutcome | None:
        """One LLM decision and its consequences; an outcome when the subtask ends."""
        if not self.x.client.configured:
            return self.needs_human(LLM_NOT_CONFIGURED_HELP, "llm_not_configured", snapshot)
        routing = await self.route(snapshot)
        result = await self.x.client.call_structured(
            self.x.prompt,
            ProposedAction,
            tier=routing.tier,
            context=self.x.call_context,
            variables=self.variables(snapshot),
            known_secret_values=self.known_secrets(),
        )
        self.decisions += 1
        if result.raw_response:
            self.raw_outputs = [*self.raw_outputs, result.raw_response[:_RAW_CHARS]][-self.x.options.kept_raw_outputs :]
        if result.data is None:
            self.errors.extend(result.errors)
            await self.x.router.record_outcome(self.org, routing.page_signature, routing.tier, ok=False)
            self.events.append(self.call_event(result, routing, "no_usable_answer"))
            message = (
                f"The LLM gave no usable next action after {result.attempts} attempt(s): {'; '.join(result.errors)}"
            )
            return self.needs_human(message, "llm_no_usable_answer", snapshot)
        verdict, ok, finished = await self.handle(result.data, snapshot, result.model)
        await self.x.router.record_outcome(self.org, routing.page_signature, routing.tier, ok=ok)
        # An outcome already took the events collected so far; this decision's record goes with it.
        (finished.events if finished is not None else self.events).append(self.call_event(result, routing, verdict))
        return finished

    async def handle(
        self, proposal: ProposedAction, snapshot: PageSnapshot, model: str
    ) -> tuple[str, bool, ExecutionOutcome | None]:
        """(verdict, whether the decision was good, the outcome when the subtask ends)."""
        if proposal.action == "complete":
            if self.condition.checkable_in_code:
                self.refused(proposal, f"FinRPA checks '{self.condition.render()}' itself and it does not hold yet")
                return "complete_refused", False, None
            return "complete", True, await self.succeeded(snapshot, "llm", evidence=proposal.reason)
        if proposal.action == "fail":
            message = f"The LLM found the goal cannot be reached from here: {proposal.reason or 'no reason given'}"
            return "gave_up", True, self.needs_human(message, "llm_gave_up", snapshot)
        try:
            planned = validate_proposal(proposal, snapshot, self.inputs)
        except ProposalRefused as refusal:
            self.refused(proposal, refusal.message)
            return "refused", False, None
        failure = await self.act(planned)
        if failure is not None and failure.ends is not None:
            return "refused_by_gate", True, failure.ends
        if failure is not None:
            self.errors.append(f"step {self.step}: {planned.describe()} failed: {failure.message}")
            if failure.may_have_acted:
                self.memory.spoil()
            if failure.fatal:
                return "action_failed", True, self.needs_human(failure.message, failure.code, snapshot)
            return "action_failed", False, None
        self.memory.record(planned.to_cached(), model)
        return "acted", True, None

    async def route(self, snapshot: PageSnapshot) -> RoutingDecision:
        signature = page_signature(snapshot.url, snapshot.title)
        page = self.page_of(snapshot)
        if page is not None and not self.dialog_open(snapshot):
            with contextlib.suppress(TimeoutError):
                self.features = await asyncio.wait_for(measure_page_features(page), self.x.options.measure_timeout_s)
        return await self.x.router.route(self.org, signature, self.features, run_id=self.x.call_context.run_id)

    def variables(self, snapshot: PageSnapshot) -> dict[str, PromptValue]:
        condition = self.condition
        done_when = (
            f"{condition.render()} (FinRPA checks this itself)"
            if condition.checkable_in_code
            else f"{condition.value} (answer complete when this holds)"
        )
        history = "\n".join(self.history[-self.x.options.history_lines :]) or "(nothing yet)"
        return {
            "goal": self.subtask.goal,
            "completion": done_when,
            "allowed": ", ".join(sorted(self.inputs.allowed_actions)) or "none",
            "inputs": "\n".join(self.inputs.placeholders()) or "(none)",
            "history": Untrusted(history, "history"),
            "page": Untrusted(render_snapshot(snapshot, token_budget=self.x.options.token_budget)),
        }

    def refused(self, proposal: ProposedAction, reason: str) -> None:
        target = f" {proposal.ref}" if proposal.ref else ""
        message = f"step {self.step}: refused {proposal.action}{target}: {reason}"
        self.errors.append(message)
        self.note(f"Refused (nothing was done): {proposal.action}{target}: {reason}")

    # -- acting -----------------------------------------------------------------------------------------------
    async def act(self, planned: PlannedAction) -> _ActFailure | None:
        """Build the action (secrets looked up now), pass the gate, act through the controller, report back."""
        try:
            value = await self.value_of(planned)
            action = planned.build(value)
        except FinRPAError as exc:
            self.note(f"Could not prepare {planned.describe()}: {exc.message}")
            return _ActFailure(exc.code, exc.message, fatal=not exc.retryable)
        clearance: ActionClearance | None = None
        if self.x.gate is not None:
            clearance = await self.x.gate.review(self.request(planned, value))
            self.events.extend(clearance.events)
            if clearance.done_before:
                self.note(f"Already done earlier in this run (effect ledger), not repeated: {planned.describe()}")
                return None
            if not clearance.proceed:
                self.note(f"Not allowed: {planned.describe()}: {clearance.message}")
                self.errors.append(f"step {self.step}: {planned.describe()} refused: {clearance.message}")
                return _ActFailure(clearance.code, clearance.message, fatal=True, ends=self.refusal(clearance))
        try:
            result = await self.controller.execute(action)
        except TargetRefusedError as exc:
            self.note(f"Refused by the page check: {planned.describe()}: {exc.message}")
            await self.settle(clearance, ok=False, may_have_acted=False, detail=exc.message)
            return _ActFailure(f"target_{exc.reason}", exc.message)
        except BrowserError as exc:
            self.note(f"Failed: {planned.describe()}: {exc.message}")
            refused_before_acting = isinstance(exc, StaleSnapshotError | InvalidActionError | EgressDeniedError)
            await self.settle(clearance, ok=False, may_have_acted=not refused_before_acting, detail=exc.message)
            return _ActFailure(exc.code, exc.message, may_have_acted=not refused_before_acting)
        finally:
            await self.controller.settled()  # the action's after-shot and record finish in the background
            self.collect_evidence()
        await self.settle(clearance, ok=True, may_have_acted=True, detail=planned.describe())
        self.keep(result)
        self.remember_typed(planned, value)
        self.note(f"Done: {planned.describe()}")
        return None

    def request(self, planned: PlannedAction, value: str | SecretText | None) -> ActionRequest:
        snapshot = self.snapshot
        dialog = snapshot.dialogs[-1] if snapshot is not None and snapshot.dialogs else None
        return ActionRequest(
            subtask=self.subtask,
            planned=planned,
            url=snapshot.url if snapshot is not None else self.controller_url(),
            page_title=snapshot.title if snapshot is not None else "",
            dialog_text=f"{dialog.name} {dialog.text}".strip() if dialog is not None else "",
            dialog_kind=dialog.kind if dialog is not None else None,
            typed=tuple(self.typed.values()),
            value=value if isinstance(value, str) else None,
        )

    def controller_url(self) -> str:
        tab = self.controller.run.tabs.get(self.controller.run.active_tab_id) if self.controller.run.tabs else None
        return tab.page.url if tab is not None else ""

    async def settle(self, clearance: ActionClearance | None, *, ok: bool, may_have_acted: bool, detail: str) -> None:
        if clearance is None or self.x.gate is None or clearance.ticket is None:
            return
        self.events.extend(await self.x.gate.settle(clearance, ok=ok, may_have_acted=may_have_acted, detail=detail))

    def remember_typed(self, planned: PlannedAction, value: str | SecretText | None) -> None:
        """What was typed or chosen in a field, for the gate: the risk check reads the values (an amount),
        and an approval binds them."""
        if planned.kind not in ("fill", "select") or planned.fingerprint is None or planned.value is None:
            return
        fingerprint = planned.fingerprint
        name = fingerprint.label or fingerprint.name or planned.ref or "field"
        plain = None if isinstance(value, SecretText) or value is None else value
        self.typed[name] = TypedValue(name, planned.value.placeholder, plain)

    def refusal(self, clearance: ActionClearance) -> ExecutionOutcome:
        """The subtask's outcome when the gate refused an action: nothing was clicked; the run goes on per the
        subtask's failure strategy (a refusal is never retried as is)."""
        if clearance.needs_human:
            return self.needs_human(clearance.message, clearance.code, self.snapshot)
        events = self.drain()
        return ExecutionOutcome(
            success=False,
            error=clearance.message,
            error_code=clearance.code,
            retryable=False,
            events=events,
            url=self.snapshot.url if self.snapshot is not None else None,
            human_context={
                "error_code": clearance.code,
                "url": self.snapshot.url if self.snapshot is not None else None,
                "llm_errors": self.errors[-20:],
                "steps": self.history[-self.x.options.history_lines :],
                "last_screenshot": _last_screenshot(events),
            },
        )

    async def value_of(self, planned: PlannedAction) -> str | SecretText | None:
        value = planned.value
        if value is None:
            return None
        if value.option is not None:
            return value.option
        if not value.secret:
            return self.inputs.values[value.name]
        if value.name not in self.secrets:
            if self.x.secrets is None:
                raise VaultUnavailableError(
                    f"The step needs the secret {{{{secret:{value.name}}}}}, but this run has no access to the "
                    "credential vault; run it through `finrpa run`."
                )
            reference = self.inputs.secrets[value.name]
            self.secrets[value.name] = await self.x.secrets.resolve(
                reference, purpose=f"typed for: {self.subtask.goal}"
            )
        return self.secrets[value.name]

    def keep(self, result: ActionResult) -> None:
        if result.table is not None:
            table = result.table
            self.tables.append(
                {
                    "caption": table.caption,
                    "headers": table.headers,
                    "rows": table.rows[:500],
                    "truncated": table.truncated or len(table.rows) > 500,
                }
            )

    # -- outcomes ---------------------------------------------------------------------------------------------
    async def succeeded(self, snapshot: PageSnapshot, by: str, evidence: str = "") -> ExecutionOutcome:
        await self.memory.flush(self.known_secrets())
        data: dict[str, Any] = {
            "completed_by": by,
            "condition": self.condition.render(),
            "url": snapshot.url,
            "steps": self.step,
            "llm_decisions": self.decisions,
            "cache_hits": self.hits,
            "downloads": [_download(file) for file in self.downloads()],
        }
        if self.tables:
            data["tables"] = self.tables
        if evidence:
            data["evidence"] = evidence[:500]
        return ExecutionOutcome(success=True, data=data, events=self.drain(), url=snapshot.url)

    def needs_human(self, message: str, code: str, snapshot: PageSnapshot | None) -> ExecutionOutcome:
        events = self.drain()
        context: dict[str, Any] = {
            "error_code": code,
            "url": snapshot.url if snapshot else None,
            "llm_raw_output": self.raw_outputs[-1] if self.raw_outputs else None,
            "llm_raw_outputs": list(self.raw_outputs),
            "llm_errors": self.errors[-20:],
            "steps": self.history[-self.x.options.history_lines :],
            "last_screenshot": _last_screenshot(events),
        }
        return ExecutionOutcome(
            success=False,
            error=message,
            error_code=code,
            needs_human=True,
            events=events,
            url=context["url"],
            human_context=context,
        )

    # -- bookkeeping ----------------------------------------------------------------------------------------
    @property
    def org(self) -> str:
        return self.x.call_context.org_id

    def note(self, line: str) -> None:
        self.history.append(f"step {self.step}: {line}")

    def known_secrets(self) -> list[str]:
        return [secret.reveal() for secret in self.secrets.values()]

    def collect_evidence(self) -> None:
        if self.x.evidence is not None:
            self.events.extend(self.x.evidence.drain())

    def drain(self) -> list[NewEvent]:
        self.collect_evidence()
        events, self.events = self.events, []
        return events

    def page_of(self, snapshot: PageSnapshot) -> Page | None:
        tab = self.controller.run.tabs.get(snapshot.tab_id)
        return tab.page if tab is not None and not tab.page.is_closed() else None

    def dialog_open(self, snapshot: PageSnapshot) -> bool:
        tab = self.controller.run.tabs.get(snapshot.tab_id)
        return tab is not None and tab.pending_dialog is not None

    async def full_text(self, snapshot: PageSnapshot) -> str:
        page = self.page_of(snapshot)
        if page is None or self.dialog_open(snapshot):
            return ""
        texts: list[str] = []
        for frame in page.frames:
            with contextlib.suppress(PlaywrightError, TimeoutError):
                texts.append(str(await asyncio.wait_for(frame.evaluate(_FULL_TEXT), 3.0)))
        return "\n".join(texts)

    def downloads(self) -> list[DownloadedFile]:
        files: list[DownloadedFile] = []
        for tab_id, tab in self.controller.run.tabs.items():
            for future in tab.downloads[self.download_base.get(tab_id, 0) :]:
                if future.done() and not future.cancelled() and future.exception() is None:
                    files.append(future.result())
        return files

    def call_event(self, result: LLMCallResult[ProposedAction], routing: RoutingDecision, verdict: str) -> NewEvent:
        proposal = result.data
        payload: dict[str, Any] = {
            "subtask_id": self.subtask.subtask_id,
            "source": "llm",
            "step": self.step,
            "verdict": verdict,
            "prompt_id": result.prompt_id,
            "prompt_version": result.prompt_version,
            "model": result.model,
            "tier": result.tier.value,
            "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens,
            "cost_usd": str(result.cost_usd),
            "attempts": result.attempts,
            "errors": result.errors[-5:],
            "page_signature": routing.page_signature,
            "complexity": routing.complexity.value,
            "signals": list(routing.signals),
            "promoted": routing.promoted,
            "proposal": None
            if proposal is None
            else proposal.model_dump(include={"action", "ref", "value", "key", "table", "reason"}),
        }
        return NewEvent(EventType.LLM_CALL, payload)

    def cache_event(self, verified: bool, reason: str | None, actions: int = 0) -> NewEvent:
        payload = {
            "subtask_id": self.subtask.subtask_id,
            "source": "cache",
            "step": self.step,
            "verified": verified,
            "miss_reason": reason,
            "actions": actions,
            "prompt_id": self.x.prompt.id,
            "prompt_version": self.x.prompt.version,
        }
        return NewEvent(EventType.LLM_CALL, payload)


def _download(file: DownloadedFile) -> dict[str, Any]:
    return {
        "filename": file.filename,
        "path": str(file.path),
        "size": file.size,
        "sha256": file.sha256,
        "media_type": file.media_type,
    }


def _last_screenshot(events: list[NewEvent]) -> dict[str, Any] | None:
    for event in reversed(events):
        shot = event.payload.get("screenshot_after") or event.payload.get("screenshot_before")
        if shot:
            return dict(shot)
    return None
