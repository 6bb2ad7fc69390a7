/**
 * What the approvals inbox shows about one request, as pure functions: dual-approval progress ("1/2") and who
 * filled each slot, time left before it times out, the risk level's colour, the list query of each filter, and
 * the decision's body (bound to the payload hash shown; a rejection says why). Whether the signed-in user may
 * decide comes from the server (`can_decide`, `cannot_decide`): never the requester, each approver once.
 */

export interface ApprovalLike {
  status: string;
  required_approvals: number;
  approvals: number;
  requested_by: string | null;
  expires_at: string;
}

export interface Progress {
  done: number;
  required: number;
  percent: number;
  label: string;
}

export function approvalProgress(approval: Pick<ApprovalLike, "required_approvals" | "approvals">): Progress {
  const required = Math.max(1, approval.required_approvals);
  const done = Math.min(required, Math.max(0, approval.approvals));
  return { done, required, percent: Math.round((done / required) * 100), label: `${done}/${required}` };
}

/** Milliseconds until the request times out (0 once it has). */
export function timeLeftMs(expiresAt: string, now: number = Date.now()): number {
  const end = new Date(expiresAt).getTime();
  return Number.isNaN(end) ? 0 : Math.max(0, end - now);
}

const RISK_COLORS: Record<string, string> = { low: "green", medium: "gold", high: "orange", critical: "red" };

export function riskColor(level: string): string {
  return RISK_COLORS[level.toLowerCase()] ?? "default";
}

export type CannotDecide = "not_pending" | "expired" | "own_request" | "not_eligible" | "already_decided";
export type Verdict = "approve" | "reject";
export const MAX_COMMENT_CHARS = 2000;

export interface DecisionBody {
  verdict: Verdict;
  comment: string;
  payload_hash: string;
}

export type DraftProblem = "reason_required" | "comment_too_long" | "no_payload_hash";

/**
 * The body of a decision, bound to the payload hash the approver was shown (the server refuses it if the action
 * changed since), or why it cannot be sent yet: a rejection must say why, and comments have a maximum length.
 */
export function decisionBody(payloadHash: string, verdict: Verdict, comment: string): DecisionBody | DraftProblem {
  const text = comment.trim();
  if (!/^[0-9a-f]{64}$/.test(payloadHash)) return "no_payload_hash";
  if (verdict === "reject" && text === "") return "reason_required";
  if (text.length > MAX_COMMENT_CHARS) return "comment_too_long";
  return { verdict, comment: text, payload_hash: payloadHash };
}

export interface Slot {
  state: "approved" | "rejected" | "open";
  who: string | null;
  comment: string;
}

/** One slot per required approval (and one per rejection): who filled it, or open. */
export function approvalSlots(
  approval: Pick<ApprovalLike, "required_approvals"> & {
    decisions: readonly {
      verdict: string;
      comment?: string;
      approver: { username: string | null; display_name: string | null; user_id: string };
    }[];
  },
): Slot[] {
  const filled = approval.decisions.map(
    (d): Slot => ({
      state: d.verdict === "approve" ? "approved" : "rejected",
      who: d.approver.display_name || d.approver.username || d.approver.user_id,
      comment: d.comment ?? "",
    }),
  );
  const approved = filled.filter((slot) => slot.state === "approved");
  const rejected = filled.filter((slot) => slot.state === "rejected");
  const open = Math.max(0, Math.max(1, approval.required_approvals) - filled.length);
  return [...approved, ...rejected, ...Array.from({ length: open }, (): Slot => ({ state: "open", who: null, comment: "" }))];
}

/** Time left for people: "1 h 05 min", "12 min", "< 1 min" (English) / "1 小时 05 分钟" … (zh-CN); "" once it is over. */
export function formatTimeLeft(ms: number, locale: "zh-CN" | "en"): string {
  if (ms <= 0) return "";
  const minutes = Math.floor(ms / 60_000);
  const zh = locale === "zh-CN";
  if (minutes < 1) return zh ? "不到 1 分钟" : "< 1 min";
  const hours = Math.floor(minutes / 60);
  const rest = String(minutes % 60).padStart(hours > 0 ? 2 : 1, "0");
  if (hours === 0) return zh ? `${rest} 分钟` : `${rest} min`;
  return zh ? `${hours} 小时 ${rest} 分钟` : `${hours} h ${rest} min`;
}

export const INBOX_FILTERS = ["mine", "PENDING", "APPROVED", "REJECTED", "TIMEOUT", "CANCELLED"] as const;
export type InboxFilter = (typeof INBOX_FILTERS)[number];

/** The list query of a filter: "mine" is the caller's queue (no status); a status lists what the caller can see. */
export function inboxQuery(filter: InboxFilter, cursor: string | null, limit = 50): { status?: Exclude<InboxFilter, "mine">; cursor?: string; limit: number } {
  return { ...(filter === "mine" ? {} : { status: filter }), ...(cursor ? { cursor } : {}), limit };
}

/** A one-line label for a proposed action's summary: whitespace collapsed, cut at `max` characters with "…". */
export function shortSummary(summary: string, max = 60): string {
  const line = summary.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/** An action value as shown to the approver: text as is, anything else as indented JSON. */
export function actionValueText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}
