/**
 * A run waiting for a person: where it stopped and why (errors, the LLM's raw output), the last screenshot,
 * and the four choices — skip the step, mark it done by hand, retry it, abort the run — each with a note
 * that goes into the audit trail. Only the actions the server offers this user are shown.
 */
import { CameraOutlined, WarningOutlined } from "@ant-design/icons";
import { Alert, Button, Card, Descriptions, Input, Popconfirm, Space, Typography } from "antd";
import { useState } from "react";
import { api, call, type Schemas } from "../../api/client";
import { useApi } from "../../api/useApi";
import { describeProblem, ProblemAlert } from "../../components/ProblemAlert";
import { ScreenshotPair } from "../../components/ScreenshotPair";
import { useI18n } from "../../i18n/I18nProvider";
import type { MessageKey } from "../../i18n/messages.zh-CN";

type HumanAction = Schemas["Resolution"]["action"];

const ACTION_LABELS: Record<HumanAction, MessageKey> = {
  skip: "human.skip",
  mark_done: "human.markDone",
  retry: "human.retry",
  abort: "human.abort",
};

export function NeedsHumanPanel({ taskId, version, onResolved }: { taskId: string; version: number; onResolved: () => void }) {
  const { t, locale } = useI18n();
  const intervention = useApi(
    () => call(api.GET("/api/v1/tasks/{task_id}/intervention", { params: { path: { task_id: taskId } } })),
    [taskId, version],
  );
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState<HumanAction | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [showShot, setShowShot] = useState(false);
  const data = intervention.data;

  const resolve = async (action: HumanAction) => {
    setBusy(action);
    setFailure(null);
    try {
      await call(api.POST("/api/v1/tasks/{task_id}/resolve", { params: { path: { task_id: taskId } }, body: { action, note } }));
      setNote("");
      onResolved();
    } catch (problem) {
      setFailure(describeProblem(problem, t, locale));
    } finally {
      setBusy(null);
    }
  };

  if (intervention.error) return <ProblemAlert problem={intervention.error} onRetry={intervention.reload} />;
  if (!data || !data.waiting) return null;
  // The screenshot is offered as a button below; the rest of the context is what the step reported.
  const { last_screenshot: _shown, ...reported } = data.context ?? {};
  const context = Object.keys(reported).length > 0 ? JSON.stringify(reported, null, 2) : null;

  return (
    <Card
      title={
        <Space>
          <WarningOutlined style={{ color: "#fa8c16" }} />
          {t("human.title")}
        </Space>
      }
      style={{ marginBottom: 16, borderColor: "#ffd591" }}
      data-testid="needs-human-panel"
    >
      <Alert type="warning" showIcon message={data.reason ?? t("human.noReason")} style={{ marginBottom: 16 }} />
      <Descriptions size="small" column={1} bordered>
        <Descriptions.Item label={t("human.step")}>{data.subtask?.goal ?? "—"}</Descriptions.Item>
        {data.subtask?.error_message && (
          <Descriptions.Item label={t("human.error")}>
            <Typography.Text type="danger">{data.subtask.error_message}</Typography.Text>
          </Descriptions.Item>
        )}
        {context && (
          <Descriptions.Item label={t("human.context")}>
            <pre className="mono" style={{ margin: 0, maxHeight: 240, overflow: "auto", whiteSpace: "pre-wrap" }}>{context}</pre>
          </Descriptions.Item>
        )}
        <Descriptions.Item label={t("human.lastScreenshot")}>
          {data.last_screenshot ? (
            <Button size="small" icon={<CameraOutlined />} onClick={() => setShowShot(true)}>
              {t("timeline.view")}
            </Button>
          ) : (
            t("timeline.noScreenshot")
          )}
        </Descriptions.Item>
      </Descriptions>
      {data.actions.length > 0 ? (
        <>
          <Input.TextArea
            style={{ marginTop: 16 }}
            rows={2}
            maxLength={1000}
            placeholder={t("human.note")}
            value={note}
            onChange={(event) => setNote(event.target.value)}
            aria-label={t("human.note")}
          />
          {failure && <Alert type="error" message={failure} style={{ marginTop: 12 }} />}
          <Space style={{ marginTop: 12 }} wrap>
            {data.actions.map((action) =>
              action === "abort" ? (
                <Popconfirm key={action} title={t("human.abort.confirm")} onConfirm={() => void resolve(action)}>
                  <Button danger loading={busy === action} disabled={busy !== null}>
                    {t(ACTION_LABELS[action])}
                  </Button>
                </Popconfirm>
              ) : (
                <Button
                  key={action}
                  type={action === "retry" ? "primary" : "default"}
                  loading={busy === action}
                  disabled={busy !== null}
                  onClick={() => void resolve(action)}
                >
                  {t(ACTION_LABELS[action])}
                </Button>
              ),
            )}
          </Space>
        </>
      ) : (
        <Typography.Paragraph type="secondary" style={{ marginTop: 12 }}>
          {t("human.readOnly")}
        </Typography.Paragraph>
      )}
      <ScreenshotPair
        recordId={showShot && data.last_screenshot ? data.last_screenshot.audit_record_id : null}
        phases={data.last_screenshot ? [data.last_screenshot.phase] : []}
        title={t("human.lastScreenshot")}
        onClose={() => setShowShot(false)}
      />
    </Card>
  );
}
