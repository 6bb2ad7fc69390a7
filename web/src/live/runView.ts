/**
 * The live view of one run, folded from its events the same way the server folds them
 * (`finrpa.agents.events.apply_event`): the plan and each subtask's status, the browser actions for the
 * timeline, the NEEDS_HUMAN context and pending approvals. Events arrive from the task's SSE stream, possibly
 * repeated after a reconnect: any event at or below the last applied `seq` is ignored.
 */

export type TaskStatus =
  | "PENDING"
  | "RUNNING"
  | "WAITING_APPROVAL"
  | "NEEDS_HUMAN"
  | "COMPLETED"
  | "FAILED"
  | "ABORTED"
  | "TIMEOUT";

export type SubtaskStatus = "PENDING" | "RUNNING" | "SUCCESS" | "FAILED" | "SKIPPED";

export const FINAL_STATUSES: ReadonlySet<string> = new Set(["COMPLETED", "FAILED", "ABORTED", "TIMEOUT"]);

export interface RunEvent {
  seq: number;
  type: string;
  payload: Record<string, unknown>;
  created_at?: string | null;
}

export interface ScreenshotRef {
  key: string;
  sha256?: string | null;
  url?: string | null;
}

export interface SubtaskView {
  subtask_id: string;
  index: number;
  goal: string;
  status: SubtaskStatus;
  attempts: number;
  error_message: string | null;
  skill: string | null;
}

export interface ActionView {
  seq: number;
  subtask_id: string | null;
  action_index: number | null;
  kind: string;
  target: string | null;
  value: string | null;
  url_before: string | null;
  url_after: string | null;
  duration_ms: number | null;
  outcome: string | null;
  error: string | null;
  screenshot_before: ScreenshotRef | null;
  screenshot_after: ScreenshotRef | null;
  created_at: string | null;
}

export interface NeedsHumanView {
  subtask_id: string | null;
  reason: string;
  since: string | null;
  context: Record<string, unknown>;
}

export interface RiskView {
  subtask_id: string | null;
  level: string;
  requires_approval: boolean;
  reasons: string[];
}

export interface PendingApproval {
  approval_id: string;
  level: string | null;
  required: number;
}

export interface RunView {
  status: TaskStatus;
  subtasks: SubtaskView[];
  current: string | null;
  lastError: string | null;
  replanCount: number;
  actions: ActionView[];
  needsHuman: NeedsHumanView | null;
  pendingApprovals: PendingApproval[];
  risk: RiskView | null;
  lastSeq: number;
  finished: boolean;
}

export const EMPTY_RUN_VIEW: RunView = {
  status: "PENDING",
  subtasks: [],
  current: null,
  lastError: null,
  replanCount: 0,
  actions: [],
  needsHuman: null,
  pendingApprovals: [],
  risk: null,
  lastSeq: 0,
  finished: false,
};

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const num = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

function subtasksOfPlan(plan: unknown): SubtaskView[] {
  const raw = (plan as { subtasks?: unknown[] } | null)?.subtasks ?? [];
  return raw.map((item, position) => {
    const subtask = item as Record<string, unknown>;
    const call = subtask.skill_call as Record<string, unknown> | null | undefined;
    return {
      subtask_id: String(subtask.subtask_id ?? position),
      index: num(subtask.index) ?? position,
      goal: String(subtask.goal ?? ""),
      status: (text(subtask.status) as SubtaskStatus | null) ?? "PENDING",
      attempts: num(subtask.attempts) ?? 0,
      error_message: text(subtask.error_message),
      skill: text(call?.skill),
    };
  });
}

function screenshot(value: unknown): ScreenshotRef | null {
  if (typeof value === "string" && value) return { key: value };
  if (value && typeof value === "object" && "key" in value) {
    const ref = value as Record<string, unknown>;
    return { key: String(ref.key), sha256: text(ref.sha256), url: text(ref.url) };
  }
  return null;
}

function targetLabel(value: unknown): string | null {
  if (typeof value === "string") return value || null;
  if (value && typeof value === "object") {
    const target = value as Record<string, unknown>;
    const role = text(target.role);
    const name = text(target.name);
    if (role && name) return `${role} “${name}”`;
    return name ?? role;
  }
  return null;
}

export function actionOfEvent(event: RunEvent): ActionView {
  const p = event.payload;
  return {
    seq: event.seq,
    subtask_id: text(p.subtask_id),
    action_index: num(p.action_index),
    kind: String(p.kind ?? p.action_type ?? "action"),
    target: targetLabel(p.target),
    value: text(p.value),
    url_before: text(p.url_before),
    url_after: text(p.url_after),
    duration_ms: num(p.duration_ms),
    outcome: text(p.outcome),
    error: text(p.error),
    screenshot_before: screenshot(p.screenshot_before),
    screenshot_after: screenshot(p.screenshot_after),
    created_at: event.created_at ?? null,
  };
}

function withSubtask(view: RunView, id: unknown, change: (s: SubtaskView) => SubtaskView): SubtaskView[] {
  return view.subtasks.map((s) => (s.subtask_id === id ? change(s) : s));
}

function applySubtaskEvent(view: RunView, event: RunEvent): RunView {
  const p = event.payload;
  const id = p.subtask_id;
  switch (event.type) {
    case "subtask_started":
      return {
        ...view,
        status: "RUNNING",
        current: text(id),
        subtasks: withSubtask(view, id, (s) => ({ ...s, status: "RUNNING", attempts: num(p.attempt) ?? s.attempts + 1 })),
      };
    case "subtask_succeeded":
      return {
        ...view,
        current: null,
        subtasks: withSubtask(view, id, (s) => ({ ...s, status: "SUCCESS", error_message: null })),
      };
    case "subtask_failed":
      return {
        ...view,
        current: null,
        lastError: text(p.error),
        subtasks: withSubtask(view, id, (s) => ({ ...s, status: "FAILED", error_message: text(p.error) })),
      };
    case "subtask_retry":
      return { ...view, subtasks: withSubtask(view, id, (s) => ({ ...s, status: "PENDING" })) };
    case "subtask_skipped":
      return {
        ...view,
        current: null,
        subtasks: withSubtask(view, id, (s) => ({ ...s, status: "SKIPPED", error_message: text(p.reason) })),
      };
    default:
      return view;
  }
}

function applyHumanResolution(view: RunView, event: RunEvent): RunView {
  const action = text(event.payload.action);
  const id = event.payload.subtask_id ?? view.needsHuman?.subtask_id;
  const base = { ...view, needsHuman: null, current: null };
  if (action === "abort") return { ...base, status: "ABORTED" };
  const status: SubtaskStatus = action === "skip" ? "SKIPPED" : action === "mark_done" ? "SUCCESS" : "PENDING";
  return { ...base, status: "RUNNING", subtasks: withSubtask(view, id, (s) => ({ ...s, status })) };
}

function applyApprovalEvent(view: RunView, event: RunEvent): RunView {
  const id = text(event.payload.approval_id) ?? `seq-${event.seq}`;
  const others = view.pendingApprovals.filter((item) => item.approval_id !== id);
  if (event.type === "approval_requested") {
    const request = { approval_id: id, level: text(event.payload.level), required: num(event.payload.required) ?? 1 };
    return { ...view, status: "WAITING_APPROVAL", pendingApprovals: [...others, request] };
  }
  const pending = others;
  const status = pending.length === 0 && view.status === "WAITING_APPROVAL" ? "RUNNING" : view.status;
  return { ...view, status, pendingApprovals: pending };
}

/** The view after one event; events already applied (seq ≤ lastSeq) leave it unchanged. */
export function applyRunEvent(view: RunView, event: RunEvent): RunView {
  if (event.seq <= view.lastSeq) return view;
  const next = { ...applyEventBody(view, event), lastSeq: event.seq };
  return next;
}

function applyEventBody(view: RunView, event: RunEvent): RunView {
  const p = event.payload;
  switch (event.type) {
    case "run_created":
      return { ...view, status: "PENDING", subtasks: subtasksOfPlan(p.plan) };
    case "replanned":
      return { ...view, subtasks: subtasksOfPlan(p.plan), replanCount: view.replanCount + 1, status: "RUNNING" };
    case "action":
      return { ...view, actions: [...view.actions, actionOfEvent(event)] };
    case "needs_human": {
      const { subtask_id: subtaskId, reason, ...context } = p;
      const needsHuman = { subtask_id: text(subtaskId), reason: String(reason ?? ""), since: event.created_at ?? null, context };
      return { ...view, status: "NEEDS_HUMAN", current: text(subtaskId), lastError: text(reason), needsHuman };
    }
    case "human_resolution":
      return applyHumanResolution(view, event);
    case "approval_requested":
    case "approval_decided":
      return applyApprovalEvent(view, event);
    case "risk_decision":
      return {
        ...view,
        risk: {
          subtask_id: text(p.subtask_id),
          level: String(p.level ?? ""),
          requires_approval: p.requires_approval === true,
          reasons: Array.isArray(p.reasons) ? p.reasons.map(String) : [],
        },
      };
    case "run_finished":
      return {
        ...view,
        status: (text(p.status) as TaskStatus | null) ?? view.status,
        finished: true,
        current: null,
        needsHuman: null,
        lastError: text(p.error) ?? view.lastError,
      };
    default:
      return applySubtaskEvent(view, event);
  }
}

/** Fold a whole event log (e.g. the events returned by the task detail route). */
export function foldRunEvents(events: readonly RunEvent[], start: RunView = EMPTY_RUN_VIEW): RunView {
  return [...events].sort((a, b) => a.seq - b.seq).reduce(applyRunEvent, start);
}

export function isFinal(status: string): boolean {
  return FINAL_STATUSES.has(status);
}

/** The stream's closing `end` event: the run is over, in this status. */
export function endRun(view: RunView, status: string | null): RunView {
  const final = status && FINAL_STATUSES.has(status) ? (status as TaskStatus) : view.status;
  return { ...view, status: final, finished: true, current: null, needsHuman: null };
}

/** A starting view from the task detail route, before any event has been streamed. */
export function viewFromTask(task: {
  status: string;
  plan: { subtasks: unknown[] };
  current_subtask_id?: string | null;
  last_error?: string | null;
  replan_count?: number;
}): RunView {
  return {
    ...EMPTY_RUN_VIEW,
    status: task.status as TaskStatus,
    subtasks: subtasksOfPlan(task.plan),
    current: task.current_subtask_id ?? null,
    lastError: task.last_error ?? null,
    replanCount: task.replan_count ?? 0,
    finished: FINAL_STATUSES.has(task.status),
  };
}
