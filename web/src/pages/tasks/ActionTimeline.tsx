/**
 * The run's audited actions in order (oldest first): what was done, to which element, with which (masked)
 * value, the outcome and time taken, and a button for the before/after screenshots. Rows come from
 * `GET /tasks/{id}/actions`; the detail page reloads them when new action events stream in.
 */
import { CameraOutlined } from "@ant-design/icons";
import { Button, Empty, Table, Tag, Typography } from "antd";
import type { ColumnsType } from "antd/es/table";
import { useState } from "react";
import type { Schemas } from "../../api/client";
import { ScreenshotPair, type Phase } from "../../components/ScreenshotPair";
import { formatDateTime, formatDuration } from "../../format/dates";
import { formatAuditValue } from "../../format/auditValue";
import { useI18n } from "../../i18n/I18nProvider";

type AuditRecord = Schemas["AuditRecordView"];

const RESULT_COLORS: Record<string, string> = {
  ok: "success",
  success: "success",
  succeeded: "success",
  completed: "success",
  approved: "success",
  failed: "error",
  error: "error",
  denied: "error",
  invalid: "error",
  rejected: "error",
  blocked: "warning",
  uncertain: "warning",
  requested: "processing",
  pending: "processing",
};

export function resultColor(result: string): string {
  return RESULT_COLORS[result.toLowerCase()] ?? "default";
}

function phasesOf(record: AuditRecord): Phase[] {
  const phases: Phase[] = [];
  if (record.has_screenshot_before) phases.push("before");
  if (record.has_screenshot_after) phases.push("after");
  return phases;
}

export function ActionTimeline({ records, loading }: { records: AuditRecord[]; loading: boolean }) {
  const { t, locale } = useI18n();
  const [open, setOpen] = useState<AuditRecord | null>(null);
  const ordered = [...records].sort((a, b) => a.seq - b.seq);

  const columns: ColumnsType<AuditRecord> = [
    { title: "#", dataIndex: "action_index", width: 56, render: (value: number | null) => (value === null ? "" : value + 1) },
    { title: t("timeline.time"), dataIndex: "created_at", width: 170, render: (value: string) => formatDateTime(value) },
    { title: t("timeline.action"), dataIndex: "action_type", width: 190, render: (value: string) => <Tag>{value}</Tag> },
    { title: t("timeline.target"), dataIndex: "target_element", width: 200, ellipsis: true, render: (value: string | null) => value ?? "" },
    {
      title: t("timeline.value"),
      dataIndex: "input_value",
      width: 200,
      ellipsis: true,
      render: (value: unknown) => <Typography.Text className="mono">{formatAuditValue(value)}</Typography.Text>,
    },
    {
      title: t("timeline.result"),
      dataIndex: "execution_result",
      width: 110,
      render: (value: string) => <Tag color={resultColor(value)}>{value}</Tag>,
    },
    { title: t("timeline.duration"), dataIndex: "duration_ms", width: 100, render: (value: number | null) => formatDuration(value, locale) },
    {
      title: t("timeline.screenshots"),
      width: 110,
      render: (_: unknown, record) =>
        phasesOf(record).length > 0 ? (
          <Button size="small" icon={<CameraOutlined />} onClick={() => setOpen(record)} aria-label={t("timeline.open", { n: record.seq })}>
            {t("timeline.view")}
          </Button>
        ) : null,
    },
  ];

  return (
    <>
      <Table<AuditRecord>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={ordered}
        loading={loading && records.length === 0}
        pagination={ordered.length > 50 ? { pageSize: 50, showSizeChanger: false } : false}
        scroll={{ x: 1100 }}
        locale={{ emptyText: <Empty description={t("timeline.empty")} /> }}
        data-testid="action-timeline"
      />
      <ScreenshotPair
        recordId={open?.id ?? null}
        phases={open ? phasesOf(open) : []}
        title={open ? `${open.action_type} ${open.target_element ?? ""}` : ""}
        onClose={() => setOpen(null)}
      />
    </>
  );
}
