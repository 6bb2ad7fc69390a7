/** An API error shown as the server's sentence (or ours for network and session problems), with a retry. */
import { Alert, Button } from "antd";
import { useI18n } from "../i18n/I18nProvider";
import { describeProblem } from "./problemText";

export { describeProblem };

export function ProblemAlert({ problem, onRetry }: { problem: unknown; onRetry?: () => void }) {
  const { t, locale } = useI18n();
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      message={describeProblem(problem, t, locale)}
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
