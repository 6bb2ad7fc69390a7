/**
 * Runs, newest first, filtered by status and template, paged with the API's opaque cursor (a stack of
 * cursors gives "previous"). The page refreshes itself while any visible run has not finished.
 */
import { PlusOutlined, ReloadOutlined } from "@ant-design/icons";
import { Button, Card, Empty, Select, Space, Table, Typography } from "antd";
import type { ColumnsType } from "antd/es/table";
import { useEffect, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { api, call, type Schemas } from "../../api/client";
import { useApi } from "../../api/useApi";
import { PageTitle } from "../../components/PageTitle";
import { ProblemAlert } from "../../components/ProblemAlert";
import { StatusTag } from "../../components/StatusTag";
import { useDepartments, useTemplates } from "../../data/reference";
import { formatDateTime } from "../../format/dates";
import { useI18n } from "../../i18n/I18nProvider";
import { localizedName } from "../../i18n/translate";
import { isFinal, type TaskStatus } from "../../live/runView";

type TaskSummary = Schemas["TaskSummary"];

const STATUSES: TaskStatus[] = [
  "PENDING",
  "RUNNING",
  "WAITING_APPROVAL",
  "NEEDS_HUMAN",
  "COMPLETED",
  "FAILED",
  "ABORTED",
  "TIMEOUT",
];
const PAGE_SIZE = 20;
const LIVE_REFRESH_MS = 5000;

export function TaskListPage() {
  const { t, locale } = useI18n();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const status = (params.get("status") as TaskStatus | null) ?? undefined;
  const templateId = params.get("template") ?? undefined;
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const templates = useTemplates();
  const departments = useDepartments();

  const page = useApi(
    () =>
      call(
        api.GET("/api/v1/tasks", {
          params: { query: { status, template_id: templateId, cursor, limit: PAGE_SIZE } },
        }),
      ),
    [status, templateId, cursor],
  );

  const anyLive = (page.data?.items ?? []).some((task) => !isFinal(task.status));
  useEffect(() => {
    if (!anyLive) return;
    const timer = setInterval(page.reload, LIVE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [anyLive, page.reload]);

  const setFilter = (name: string, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next);
    setCursors([undefined]);
  };

  const templateName = (id: string | null) => {
    const template = templates.find((item) => item.id === id);
    return template ? localizedName(locale, template.name, template.name_en) : (id ?? "—");
  };

  const columns: ColumnsType<TaskSummary> = [
    {
      title: t("tasks.col.created"),
      dataIndex: "created_at",
      width: 180,
      render: (value: string, task) => <Link to={`/tasks/${task.id}`}>{formatDateTime(value)}</Link>,
    },
    { title: t("tasks.col.template"), dataIndex: "template_id", render: (id: string | null) => templateName(id) },
    { title: t("tasks.col.status"), dataIndex: "status", width: 140, render: (value: string) => <StatusTag status={value} /> },
    {
      title: t("tasks.col.department"),
      dataIndex: "dept_id",
      render: (id: string | null) => departments.find((d) => d.id === id)?.name ?? id ?? "—",
    },
    { title: t("tasks.col.finished"), dataIndex: "finished_at", width: 180, render: (value: string | null) => formatDateTime(value) },
    {
      title: t("tasks.col.error"),
      dataIndex: "error_message",
      ellipsis: true,
      render: (value: string | null) => (value ? <Typography.Text type="danger">{value}</Typography.Text> : ""),
    },
  ];

  const filtersActive = Boolean(status || templateId);
  const empty = (
    <Empty description={filtersActive ? t("tasks.empty.filtered") : t("tasks.empty")}>
      {!filtersActive && (
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate("/tasks/new")}>
          {t("tasks.new")}
        </Button>
      )}
    </Empty>
  );

  return (
    <>
      <PageTitle
        title={t("menu.tasks")}
        extra={
          <>
            <Button icon={<ReloadOutlined />} onClick={page.reload}>
              {t("app.refresh")}
            </Button>
            <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate("/tasks/new")}>
              {t("tasks.new")}
            </Button>
          </>
        }
      />
      {page.error && <ProblemAlert problem={page.error} onRetry={page.reload} />}
      <Card>
        <Space wrap style={{ marginBottom: 16 }}>
          <Select
            allowClear
            placeholder={t("tasks.filter.status")}
            style={{ width: 180 }}
            value={status}
            onChange={(value?: string) => setFilter("status", value)}
            options={STATUSES.map((value) => ({ value, label: t(`status.${value}`) }))}
            aria-label={t("tasks.filter.status")}
          />
          <Select
            allowClear
            placeholder={t("tasks.filter.template")}
            style={{ width: 240 }}
            value={templateId}
            onChange={(value?: string) => setFilter("template", value)}
            options={templates.map((item) => ({ value: item.id, label: localizedName(locale, item.name, item.name_en) }))}
            aria-label={t("tasks.filter.template")}
          />
        </Space>
        <Table<TaskSummary>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={page.data?.items ?? []}
          loading={page.loading && !page.data}
          pagination={false}
          locale={{ emptyText: empty }}
          onRow={(task) => ({ onDoubleClick: () => navigate(`/tasks/${task.id}`) })}
        />
        <Space style={{ marginTop: 16, justifyContent: "flex-end", width: "100%" }}>
          <Button disabled={cursors.length === 1} onClick={() => setCursors((stack) => stack.slice(0, -1))}>
            {t("pager.previous")}
          </Button>
          <Button
            disabled={!page.data?.next_cursor}
            onClick={() => page.data?.next_cursor && setCursors((stack) => [...stack, page.data?.next_cursor ?? undefined])}
          >
            {t("pager.next")}
          </Button>
        </Space>
      </Card>
    </>
  );
}
