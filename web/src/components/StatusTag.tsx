/** A run's or a subtask's status as a coloured tag in the user's language. */
import { Tag } from "antd";
import { useI18n } from "../i18n/I18nProvider";
import type { MessageKey } from "../i18n/messages.zh-CN";

const TASK_COLORS: Record<string, string> = {
  PENDING: "default",
  RUNNING: "processing",
  WAITING_APPROVAL: "gold",
  NEEDS_HUMAN: "orange",
  COMPLETED: "success",
  FAILED: "error",
  ABORTED: "default",
  TIMEOUT: "magenta",
};

const SUBTASK_COLORS: Record<string, string> = {
  PENDING: "default",
  RUNNING: "processing",
  SUCCESS: "success",
  FAILED: "error",
  SKIPPED: "warning",
};

export function StatusTag({ status, kind = "task" }: { status: string; kind?: "task" | "subtask" }) {
  const { t } = useI18n();
  const colors = kind === "task" ? TASK_COLORS : SUBTASK_COLORS;
  const key = `${kind === "task" ? "status" : "subtask"}.${status}` as MessageKey;
  const label = t(key);
  return (
    <Tag color={colors[status] ?? "default"} data-status={status}>
      {label === key ? status : label}
    </Tag>
  );
}
