/**
 * What the policies tab shows about Cedar policies, as pure functions: the colour of an effect, a first check
 * of a draft before it is sent (the server validates it for real against the schema and the policies in force),
 * and the order of the organisation's policies (in force first, newest first).
 */

export type PolicyEffect = "permit" | "forbid" | "require_approval";

const EFFECT_COLORS: Record<PolicyEffect, string> = { permit: "green", forbid: "red", require_approval: "orange" };

export function effectColor(effect: string): string {
  return EFFECT_COLORS[effect as PolicyEffect] ?? "default";
}

export const MAX_POLICY_CHARS = 100_000;

export type PolicyDraftProblem = "name_required" | "text_required" | "id_missing" | "too_long";

/** Why a draft cannot be sent yet, or null. Every Cedar policy needs an @id: decisions report it as their reason code. */
export function policyDraftProblem(name: string, text: string): PolicyDraftProblem | null {
  if (name.trim() === "") return "name_required";
  if (text.trim() === "") return "text_required";
  if (text.length > MAX_POLICY_CHARS) return "too_long";
  if (!/@id\s*\(/.test(text)) return "id_missing";
  return null;
}

export interface PolicyLike {
  enabled: boolean;
  created_at: string;
}

export function policyOrder<T extends PolicyLike>(policies: readonly T[]): T[] {
  return [...policies].sort((a, b) => Number(b.enabled) - Number(a.enabled) || b.created_at.localeCompare(a.created_at));
}
