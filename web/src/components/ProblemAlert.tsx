/** An API error shown as the server's sentence (or ours for network and session problems), with a retry. */
import { Alert, Button } from "antd";
import { ApiProblem } from "../api/problem";
import { useI18n } from "../i18n/I18nProvider";
import type { Translate } from "../i18n/translate";

export function describeProblem(problem: unknown, t: Translate): string {
  if (!(problem instanceof ApiProblem)) return t("app.error.network");
  if (problem.code === "network") return t("app.error.network");
  if (problem.status === 401) return t("app.error.sessionExpired");
  if (problem.status === 403 && !problem.detail) return t("app.error.forbidden");
  const reference = problem.requestId ? ` (${problem.requestId})` : "";
  return (problem.detail || `HTTP ${problem.status}`) + reference;
}

export function ProblemAlert({ problem, onRetry }: { problem: unknown; onRetry?: () => void }) {
  const { t } = useI18n();
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      message={describeProblem(problem, t)}
      action={
        onRetry ? (
          <Button size="small" onClick={onRetry}>
            {t("app.retry")}
          </Button>
        ) : undefined
      }
      style={{ marginBottom: 16 }}
    />
  );
}
