/** Failed requests as one sentence in the user's language (see describeProblem). */
import { ApiProblem } from "../api/problem";
import type { Locale } from "../i18n/locale";
import type { MessageKey } from "../i18n/messages.zh-CN";
import type { Translate } from "../i18n/translate";

// Problem codes with a sentence of our own in zh-CN; in English the server's own sentence is shown.
const LOCALIZED_CODES: Record<string, MessageKey> = {
  authentication_failed: "problem.authentication_failed",
  account_locked: "problem.account_locked",
  login_rate_limited: "problem.login_rate_limited",
  maker_checker_violation: "problem.maker_checker_violation",
  permission_denied: "problem.permission_denied",
  database_unavailable: "problem.database_unavailable",
  internal_error: "problem.internal_error",
  "approval.maker_checker": "problem.approval.maker_checker",
  "approval.already_decided": "problem.approval.already_decided",
  "approval.decision_recorded": "problem.approval.decision_recorded",
  "approval.action_changed": "problem.approval.action_changed",
  "approval.expired": "problem.approval.expired",
};

/** One sentence for a failed request: ours for network, session and well-known codes, else the server's. */
export function describeProblem(problem: unknown, t: Translate, locale: Locale = "en"): string {
  if (!(problem instanceof ApiProblem)) return t("app.error.network");
  if (problem.code === "network") return t("app.error.network");
  const reference = problem.requestId ? ` (${problem.requestId})` : "";
  const localized = LOCALIZED_CODES[problem.code];
  if (locale === "zh-CN" && localized) return t(localized) + reference;
  if (problem.status === 401 && problem.code !== "authentication_failed") return t("app.error.sessionExpired");
  if (problem.status === 403 && !problem.detail) return t("app.error.forbidden");
  return (problem.detail || `HTTP ${problem.status}`) + reference;
}
