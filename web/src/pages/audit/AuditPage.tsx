/**
 * Audit explorer: search the append-only audit trail (task, user, department, type, time range), open a
 * row's screenshots, verify the organisation's hash chain and signed checkpoints, and export the matching
 * rows as an evidence zip that can be verified offline.
 */
import { CameraOutlined, DownloadOutlined, SafetyCertificateOutlined, SearchOutlined } from "@ant-design/icons";
import { Alert, AutoComplete, Button, Card, DatePicker, Descriptions, Empty, Input, Select, Space, Table, Tag, Typography } from "antd";
import type { ColumnsType } from "antd/es/table";
import type { Dayjs } from "dayjs";
import { useState } from "react";
import { Link } from "react-router-dom";
import { api, call, download, type Schemas } from "../../api/client";
import { useApi } from "../../api/useApi";
import { useMe } from "../../auth/AuthProvider";
import { PageTitle } from "../../components/PageTitle";
import { describeProblem, ProblemAlert } from "../../components/ProblemAlert";
import { ScreenshotPair, type Phase } from "../../components/ScreenshotPair";
import { useDepartments } from "../../data/reference";
import { formatAuditValue } from "../../format/auditValue";
import { formatDateTime, formatDuration } from "../../format/dates";
import { useI18n } from "../../i18n/I18nProvider";
import { resultColor } from "../tasks/ActionTimeline";
import {
  AUDIT_ACTION_TYPES,
  exportFileName,
  exportNeedsDepartment,
  exportRequest,
  initialFilters,
  searchQuery,
  type AuditFilters,
} from "./auditFilters";

type AuditRecord = Schemas["AuditRecordView"];
type VerifyReport = Schemas["VerifyReport"];

const PAGE_SIZE = 50;

function phasesOf(record: AuditRecord): Phase[] {
  return [...(record.has_screenshot_before ? ["before" as const] : []), ...(record.has_screenshot_after ? ["after" as const] : [])];
}

function VerifyResult({ report }: { report: VerifyReport }) {
  const { t } = useI18n();
  return (
    <Alert
      type={report.ok ? "success" : "error"}
      showIcon
      style={{ marginBottom: 16 }}
      data-testid="verify-result"
      message={report.ok ? t("audit.verify.ok") : t("audit.verify.failed")}
      description={
        <Descriptions size="small" column={{ xs: 1, md: 2 }}>
          <Descriptions.Item label={t("audit.verify.summary")} span={2}>
            {report.summary}
          </Descriptions.Item>
          {report.problem && (
            <Descriptions.Item label={t("audit.verify.problem")} span={2}>
              <Typography.Text type="danger">{report.problem}</Typography.Text>
            </Descriptions.Item>
          )}
          <Descriptions.Item label={t("audit.verify.rows")}>{report.rows}</Descriptions.Item>
          <Descriptions.Item label={t("audit.verify.unanchored")}>{report.unanchored_rows}</Descriptions.Item>
          <Descriptions.Item label={t("audit.verify.root")} span={2}>
            <span className="mono">{report.root_hash}</span>
          </Descriptions.Item>
          {report.checkpoint && (
            <Descriptions.Item label={t("audit.verify.checkpoint")} span={2}>
              {t("audit.verify.checkpointText", {
                size: report.checkpoint.tree_size,
                at: formatDateTime(report.checkpoint.issued_at),
                key: report.checkpoint.key_id,
              })}
            </Descriptions.Item>
          )}
        </Descriptions>
      }
    />
  );
}

export function AuditPage() {
  const { t, locale } = useI18n();
  const me = useMe();
  const departments = useDepartments();
  const [draft, setDraft] = useState<AuditFilters>(() => initialFilters(me));
  const [filters, setFilters] = useState<AuditFilters>(() => initialFilters(me));
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [report, setReport] = useState<VerifyReport | null>(null);
  const [busy, setBusy] = useState<"verify" | "export" | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [open, setOpen] = useState<AuditRecord | null>(null);

  const page = useApi(
    () => call(api.GET("/api/v1/audit/records", { params: { query: { ...searchQuery(filters), cursor, limit: PAGE_SIZE } } })),
    [filters, cursor],
  );
  const users = useApi(() => call(api.GET("/api/v1/users")).catch(() => []), []);

  const search = () => {
    setFilters(draft);
    setCursors([undefined]);
  };

  const verify = async () => {
    setBusy("verify");
    setFailure(null);
    try {
      setReport(await call(api.GET("/api/v1/audit/verify")));
    } catch (problem) {
      setFailure(describeProblem(problem, t, locale));
    } finally {
      setBusy(null);
    }
  };

  const exportZip = async () => {
    setFailure(null);
    if (exportNeedsDepartment(me, filters)) {
      setFailure(t("audit.export.pickDepartment"));
      return;
    }
    setBusy("export");
    try {
      await download(
        "/api/v1/audit/exports",
        { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(exportRequest(filters)) },
        exportFileName(me.org_slug),
      );
    } catch (problem) {
      setFailure(describeProblem(problem, t, locale));
    } finally {
      setBusy(null);
    }
  };

  const setRange = (range: [Dayjs | null, Dayjs | null] | null) =>
    setDraft({ ...draft, since: range?.[0]?.toISOString(), until: range?.[1]?.toISOString() });

  const columns: ColumnsType<AuditRecord> = [
    { title: "#", dataIndex: "seq", width: 70 },
    { title: t("timeline.time"), dataIndex: "created_at", width: 170, render: (v: string) => formatDateTime(v) },
    { title: t("timeline.action"), dataIndex: "action_type", width: 170, render: (v: string) => <Tag>{v}</Tag> },
    {
      title: t("audit.task"),
      dataIndex: "task_id",
      width: 110,
      render: (id: string | null) => (id ? <Link to={`/tasks/${id}`}>{id.slice(0, 8)}</Link> : ""),
    },
    { title: t("timeline.target"), dataIndex: "target_element", width: 180, ellipsis: true },
    { title: t("timeline.value"), dataIndex: "input_value", width: 180, ellipsis: true, render: (v: unknown) => <span className="mono">{formatAuditValue(v)}</span> },
    { title: t("audit.executor"), dataIndex: "executor", width: 120, ellipsis: true },
    { title: t("timeline.result"), dataIndex: "execution_result", width: 100, render: (v: string) => <Tag color={resultColor(v)}>{v}</Tag> },
    { title: t("audit.approval"), dataIndex: "has_approval", width: 80, render: (v: boolean) => (v ? <Tag color="blue">✓</Tag> : "") },
    { title: t("timeline.duration"), dataIndex: "duration_ms", width: 90, render: (v: number | null) => formatDuration(v, locale) },
    {
      title: t("timeline.screenshots"),
      width: 100,
      render: (_: unknown, record) =>
        phasesOf(record).length > 0 ? <Button size="small" icon={<CameraOutlined />} onClick={() => setOpen(record)} aria-label={t("timeline.open", { n: record.seq })} /> : null,
    },
  ];

  return (
    <>
      <PageTitle
        title={t("menu.audit")}
        extra={
          <>
            <Button icon={<SafetyCertificateOutlined />} loading={busy === "verify"} onClick={() => void verify()}>
              {t("audit.verify")}
            </Button>
            <Button type="primary" icon={<DownloadOutlined />} loading={busy === "export"} onClick={() => void exportZip()}>
              {t("audit.export")}
            </Button>
          </>
        }
      />
      {failure && <Alert type="error" showIcon message={failure} style={{ marginBottom: 16 }} role="alert" />}
      {report && <VerifyResult report={report} />}
      <Card>
        <Space wrap style={{ marginBottom: 16 }}>
          <Input
            allowClear
            placeholder={t("audit.filter.task")}
            style={{ width: 220 }}
            value={draft.taskId}
            onChange={(e) => setDraft({ ...draft, taskId: e.target.value })}
            aria-label={t("audit.filter.task")}
          />
          <AutoComplete
            allowClear
            placeholder={t("audit.filter.user")}
            style={{ width: 200 }}
            value={draft.userId}
            onChange={(value: string) => setDraft({ ...draft, userId: value })}
            options={(users.data ?? []).map((u) => ({ value: u.id, label: `${u.display_name || u.username} (${u.username})` }))}
            aria-label={t("audit.filter.user")}
          />
          <Select
            allowClear
            placeholder={t("audit.filter.department")}
            style={{ width: 180 }}
            value={draft.deptId}
            onChange={(value?: string) => setDraft({ ...draft, deptId: value })}
            options={departments.map((d) => ({ value: d.id, label: d.name }))}
            aria-label={t("audit.filter.department")}
          />
          <Select
            mode="multiple"
            allowClear
            placeholder={t("audit.filter.type")}
            style={{ minWidth: 220 }}
            value={draft.actionTypes}
            onChange={(value: string[]) => setDraft({ ...draft, actionTypes: value })}
            options={AUDIT_ACTION_TYPES.map((value) => ({ value, label: value }))}
            maxTagCount="responsive"
            aria-label={t("audit.filter.type")}
          />
          <DatePicker.RangePicker showTime onChange={(range) => setRange(range as [Dayjs | null, Dayjs | null] | null)} aria-label={t("range.label")} />
          <Button type="primary" icon={<SearchOutlined />} onClick={search}>
            {t("audit.search")}
          </Button>
        </Space>
        {page.error && <ProblemAlert problem={page.error} onRetry={page.reload} />}
        <Table<AuditRecord>
          rowKey="id"
          size="small"
          columns={columns}
          dataSource={page.data?.items ?? []}
          loading={page.loading}
          pagination={false}
          scroll={{ x: 1400 }}
          locale={{ emptyText: <Empty description={t("audit.empty")} /> }}
          expandable={{
            expandedRowRender: (record) => (
              <Descriptions size="small" column={1} bordered>
                <Descriptions.Item label={t("audit.rowHash")}>
                  <span className="mono">{record.row_hash}</span>
                </Descriptions.Item>
                <Descriptions.Item label={t("audit.prevHash")}>
                  <span className="mono">{record.prev_hash}</span>
                </Descriptions.Item>
                {record.input_value_raw_hash && (
                  <Descriptions.Item label={t("audit.rawHash")}>
                    <span className="mono">{record.input_value_raw_hash}</span>
                  </Descriptions.Item>
                )}
                <Descriptions.Item label={t("audit.details")}>
                  <pre className="mono" style={{ margin: 0, whiteSpace: "pre-wrap" }}>{JSON.stringify(record.details, null, 2)}</pre>
                </Descriptions.Item>
              </Descriptions>
            ),
          }}
        />
        <Space style={{ marginTop: 16, justifyContent: "flex-end", width: "100%" }}>
          <Button disabled={cursors.length === 1} onClick={() => setCursors((s) => s.slice(0, -1))}>
            {t("pager.previous")}
          </Button>
          <Button
            disabled={!page.data?.next_cursor}
            onClick={() => page.data?.next_cursor && setCursors((s) => [...s, page.data?.next_cursor ?? undefined])}
          >
            {t("pager.next")}
          </Button>
        </Space>
      </Card>
      <ScreenshotPair recordId={open?.id ?? null} phases={open ? phasesOf(open) : []} title={open ? `#${open.seq} ${open.action_type}` : ""} onClose={() => setOpen(null)} />
    </>
  );
}
