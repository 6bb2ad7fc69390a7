/**
 * Approvals. The HTTP API of this build has no approval routes yet (no `/api/v1/approvals` in openapi.json), so
 * this page cannot show the approval requests themselves or record a decision. It lists the runs waiting for
 * approval — each run's page shows the risk level, the reasons and the approvals it needs — and tells the
 * approver how to decide today: `finrpa approvals decide` on the server, after which the run continues.
 */
import { ReloadOutlined } from "@ant-design/icons";
import { Alert, Button, Card, Empty, Table, Typography } from "antd";
import type { ColumnsType } from "antd/es/table";
import { useEffect } from "react";
import { Link, useParams } from "react-router-dom";
import { api, call, type Schemas } from "../../api/client";
import { useApi } from "../../api/useApi";
import { useMe } from "../../auth/AuthProvider";
import { PageTitle } from "../../components/PageTitle";
import { ProblemAlert } from "../../components/ProblemAlert";
import { StatusTag } from "../../components/StatusTag";
import { useDepartments, useTemplates } from "../../data/reference";
import { formatDateTime } from "../../format/dates";
import { useI18n } from "../../i18n/I18nProvider";
import { localizedName } from "../../i18n/translate";

type TaskSummary = Schemas["TaskSummary"];

const REFRESH_MS = 5000;

export function decideCommand(approvalId: string, username: string, orgSlug: string): string {
  return `finrpa approvals decide ${approvalId} --approve --user ${username} --org ${orgSlug} --comment "…"`;
}

export function ApprovalsPage() {
  const { t, locale } = useI18n();
  const me = useMe();
  const { approvalId } = useParams();
  const templates = useTemplates();
  const departments = useDepartments();
  const waiting = useApi(
    () => call(api.GET("/api/v1/tasks", { params: { query: { status: "WAITING_APPROVAL", limit: 100 } } })),
    [],
  );
  const reload = waiting.reload;
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);

  const columns: ColumnsType<TaskSummary> = [
    { title: t("tasks.col.created"), dataIndex: "created_at", width: 180, render: (v: string) => formatDateTime(v) },
    {
      title: t("tasks.col.template"),
      dataIndex: "template_id",
      render: (id: string | null, task) => {
        const template = templates.find((item) => item.id === id);
        return <Link to={`/tasks/${task.id}`}>{template ? localizedName(locale, template.name, template.name_en) : task.goal}</Link>;
      },
    },
    { title: t("tasks.col.status"), dataIndex: "status", width: 140, render: (v: string) => <StatusTag status={v} /> },
    { title: t("tasks.col.department"), dataIndex: "dept_id", render: (id: string | null) => departments.find((d) => d.id === id)?.name ?? id ?? "—" },
  ];

  return (
    <>
      <PageTitle
        title={t("menu.approvals")}
        extra={
          <Button icon={<ReloadOutlined />} onClick={reload}>
            {t("app.refresh")}
          </Button>
        }
      />
      <Alert
        type="warning"
        showIcon
        style={{ marginBottom: 16 }}
        data-testid="approvals-unavailable"
        message={t("approvals.noApi")}
        description={
          <>
            <Typography.Paragraph style={{ marginBottom: 8 }}>{t("approvals.useCli")}</Typography.Paragraph>
            <Typography.Text code copyable>
              {decideCommand(approvalId ?? t("approvals.idPlaceholder"), me.username, me.org_slug)}
            </Typography.Text>
          </>
        }
      />
      {waiting.error && <ProblemAlert problem={waiting.error} onRetry={reload} />}
      <Card title={t("approvals.waitingRuns")}>
        <Table<TaskSummary>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={waiting.data?.items ?? []}
          loading={waiting.loading && !waiting.data}
          pagination={false}
          locale={{ emptyText: <Empty description={t("approvals.empty")} /> }}
        />
      </Card>
    </>
  );
}
