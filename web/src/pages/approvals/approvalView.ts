/**
 * What the approvals inbox shows about one request, as pure functions: dual-approval progress ("1/2"), time
 * left before it times out, the risk level's colour, and whether the signed-in user may still decide (never
 * the requester, each approver once, only while pending — the server enforces all of it again).
 */

export interface ApprovalLike {
  status: string;
  required_approvals: number;
  approvals: number;
  requested_by: string | null;
  expires_at: string;
  decisions: readonly { approver_user_id: string; verdict: string }[];
}

export interface Progress {
  done: number;
  required: number;
  percent: number;
  label: string;
}

export function approvalProgress(approval: ApprovalLike): Progress {
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

export type DecideBlock = "not_pending" | "own_request" | "already_decided" | null;

/** Why the user cannot decide this request, or null when they can. */
export function decideBlock(approval: ApprovalLike, userId: string): DecideBlock {
  if (approval.status !== "PENDING") return "not_pending";
  if (approval.requested_by === userId) return "own_request";
  if (approval.decisions.some((d) => d.approver_user_id === userId)) return "already_decided";
  return null;
}
