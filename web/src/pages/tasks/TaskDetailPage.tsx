/**
 * One run: its status (live over SSE), the plan's subtasks, the NEEDS_HUMAN panel when a person must act,
 * the audited action timeline with before/after screenshots, its arguments and its result.
 */
import { ArrowLeftOutlined, StopOutlined } from "@ant-design/icons";
import { Alert, Badge, Button, Card, Col, Collapse, Descriptions, Popconfirm, Row, Skeleton, Space, Table, Typography } from "antd";
import type { ColumnsType } from "antd/es/table";
import { useEffect, useMemo, useRef, useState } from "react";
import { useNavigate, useParams } from "react-router-dom";
import { api, call } from "../../api/client";
import { useApi } from "../../api/useApi";
import { PageTitle } from "../../components/PageTitle";
import { describeProblem, ProblemAlert } from "../../components/ProblemAlert";
import { StatusTag } from "../../components/StatusTag";
import { useDepartments, useTemplates } from "../../data/reference";
import { formatDateTime } from "../../format/dates";
import { useI18n } from "../../i18n/I18nProvider";
import { localizedName } from "../../i18n/translate";
import { isFinal, viewFromTask, type SubtaskView } from "../../live/runView";
import { useRunStream, type StreamState } from "../../live/useRunStream";
import { ActionTimeline } from "./ActionTimeline";
import { ApprovalWait } from "./ApprovalWait";
import { NeedsHumanPanel } from "./NeedsHumanPanel";

const TIMELINE_RELOAD_MS = 1500;

function LiveBadge({ state }: { state: StreamState }) {
  const { t } = useI18n();
  const status = { connecting: "default", live: "processing", reconnecting: "warning", ended: "success" } as const;
  return <Badge status={status[state]} text={t(`live.${state}`)} data-testid="live-state" />;
}

function SubtaskTable({ subtasks, current }: { subtasks: SubtaskView[]; current: string | null }) {
  const { t } = useI18n();
  const columns: ColumnsType<SubtaskView> = [
    { title: "#", dataIndex: "index", width: 48, render: (value: number) => value + 1 },
    {
      title: t("detail.step"),
      dataIndex: "goal",
      render: (goal: string, row) => (row.subtask_id === current ? <Typography.Text strong>{goal}</Typography.Text> : goal),
    },
    { title: t("detail.skill"), dataIndex: "skill", width: 170, render: (value: string | null) => (value ? <Typography.Text code>{value}</Typography.Text> : "") },
    { title: t("detail.status"), dataIndex: "status", width: 110, render: (value: string) => <StatusTag status={value} kind="subtask" /> },
    { title: t("detail.attempts"), dataIndex: "attempts", width: 80 },
    { title: t("detail.error"), dataIndex: "error_message", ellipsis: true, render: (value: string | null) => <Typography.Text type="danger">{value ?? ""}</Typography.Text> },
  ];
  return <Table<SubtaskView> rowKey="subtask_id" size="small" pagination={false} columns={columns} dataSource={subtasks} data-testid="subtasks" />;
}

export function TaskDetailPage() {
  const { taskId = "" } = useParams();
  const { t, locale } = useI18n();
  const navigate = useNavigate();
  const templates = useTemplates();
  const departments = useDepartments();
  const detail = useApi(() => call(api.GET("/api/v1/tasks/{task_id}", { params: { path: { task_id: taskId } } })), [taskId]);
  const start = useMemo(() => (detail.data ? viewFromTask(detail.data) : null), [detail.data]);
  const { view, state } = useRunStream(taskId, start);
  const [actionsVersion, setActionsVersion] = useState(0);
  const [cancelFailure, setCancelFailure] = useState<string | null>(null);
  const actions = useApi(
    () => call(api.GET("/api/v1/tasks/{task_id}/actions", { params: { path: { task_id: taskId }, query: { limit: 500 } } })),
    [taskId, actionsVersion],
  );

  // Reload the audited actions as action events arrive (at most every 1.5 s) and once the run has ended.
  const lastReload = useRef(0);
  const seenActions = view.actions.length;
  useEffect(() => {
    if (seenActions === 0) return;
    const wait = Math.max(0, lastReload.current + TIMELINE_RELOAD_MS - Date.now());
    const timer = setTimeout(() => {
      lastReload.current = Date.now();
      setActionsVersion((n) => n + 1);
    }, wait);
    return () => clearTimeout(timer);
  }, [seenActions]);
  const reloadDetail = detail.reload;
  useEffect(() => {
    if (!view.finished) return;
    reloadDetail();
    setActionsVersion((n) => n + 1);
  }, [view.finished, reloadDetail]);

  if (detail.error) return <ProblemAlert problem={detail.error} onRetry={detail.reload} />;
  const task = detail.data;
  if (!task) return <Skeleton active />;

  const status = state === "connecting" ? task.status : view.status;
  const template = templates.find((item) => item.id === task.template_id);
  const title = template ? localizedName(locale, template.name, template.name_en) : task.goal;

  const cancel = async () => {
    setCancelFailure(null);
    try {
      await call(api.POST("/api/v1/tasks/{task_id}/cancel", { params: { path: { task_id: taskId } } }));
      detail.reload();
    } catch (problem) {
      setCancelFailure(describeProblem(problem, t, locale));
    }
  };

  return (
    <>
      <PageTitle
        title={
          <Space>
            {title}
            <span data-testid="task-status">
              <StatusTag status={status} />
            </span>
          </Space>
        }
        extra={
          <>
            <LiveBadge state={state} />
            {!isFinal(status) && (
              <Popconfirm title={t("detail.cancel.confirm")} onConfirm={() => void cancel()}>
                <Button danger icon={<StopOutlined />}>
                  {t("detail.cancel")}
                </Button>
              </Popconfirm>
            )}
            <Button icon={<ArrowLeftOutlined />} onClick={() => navigate("/tasks")}>
              {t("menu.tasks")}
            </Button>
          </>
        }
      />
      {cancelFailure && <Alert type="error" showIcon message={cancelFailure} style={{ marginBottom: 16 }} />}
      {view.lastError && (status === "FAILED" || status === "TIMEOUT" || status === "ABORTED") && (
        <Alert type="error" showIcon message={view.lastError} style={{ marginBottom: 16 }} data-testid="run-error" />
      )}
      {status === "NEEDS_HUMAN" && <NeedsHumanPanel taskId={taskId} version={view.lastSeq} onResolved={detail.reload} />}
      {status === "WAITING_APPROVAL" && <ApprovalWait approvals={view.pendingApprovals} risk={view.risk} />}
      <Row gutter={16}>
        <Col xs={24} xl={15}>
          <Card title={t("detail.plan")} style={{ marginBottom: 16 }}>
            <SubtaskTable subtasks={view.subtasks} current={view.current} />
          </Card>
        </Col>
        <Col xs={24} xl={9}>
          <Card title={t("detail.facts")} style={{ marginBottom: 16 }}>
            <Descriptions size="small" column={1}>
              <Descriptions.Item label="ID">
                <Typography.Text className="mono" copyable>
                  {task.id}
                </Typography.Text>
              </Descriptions.Item>
              <Descriptions.Item label={t("tasks.col.template")}>
                {task.template_id} v{task.template_version ?? "?"}
              </Descriptions.Item>
              <Descriptions.Item label={t("tasks.col.department")}>
                {departments.find((d) => d.id === task.dept_id)?.name ?? task.dept_id ?? "—"}
              </Descriptions.Item>
              <Descriptions.Item label={t("tasks.col.created")}>{formatDateTime(task.created_at)}</Descriptions.Item>
              <Descriptions.Item label={t("tasks.col.finished")}>{formatDateTime(task.finished_at)}</Descriptions.Item>
            </Descriptions>
            <Collapse
              size="small"
              ghost
              items={[
                {
                  key: "arguments",
                  label: t("detail.arguments"),
                  children: (
                    <Descriptions size="small" column={1}>
                      {Object.entries(task.arguments).map(([name, value]) => (
                        <Descriptions.Item key={name} label={name}>
                          <span className="mono">{String(value)}</span>
                        </Descriptions.Item>
                      ))}
                    </Descriptions>
                  ),
                },
                ...(Object.keys(task.result).length > 0
                  ? [
                      {
                        key: "result",
                        label: t("detail.result"),
                        children: (
                          <pre className="mono" style={{ margin: 0, maxHeight: 360, overflow: "auto", whiteSpace: "pre-wrap" }} data-testid="task-result">
                            {JSON.stringify(task.result, null, 2)}
                          </pre>
                        ),
                      },
                    ]
                  : []),
              ]}
            />
          </Card>
        </Col>
      </Row>
      <Card title={t("detail.timeline")} style={{ marginBottom: 16 }}>
        {actions.error && <ProblemAlert problem={actions.error} onRetry={actions.reload} />}
        <ActionTimeline records={actions.data?.items ?? []} loading={actions.loading} />
      </Card>
    </>
  );
}
