/**
 * The approvals inbox: the requests waiting for the signed-in approver (or, with a status filter, the requests
 * they can see), and one request in detail — the proposed action (masked), the risk level and reasons, the
 * evidence screenshot, the requester and department, dual-approval progress and the deadline — where the
 * approver approves or rejects with a comment. The server decides again who may decide (never the requester,
 * each approver once); the page only hides what would be refused. Opening a request issues an audited link to
 * its screenshot, so the detail is loaded once per opening, never polled.
 */
import { CheckOutlined, CloseOutlined, ReloadOutlined } from "@ant-design/icons";
import {
  Alert,
  Button,
  Card,
  Col,
  Descriptions,
  Empty,
  Image,
  Input,
  Progress,
  Row,
  Segmented,
  Skeleton,
  Space,
  Table,
  Tag,
  Timeline,
  Typography,
  message,
} from "antd";
import type { ColumnsType } from "antd/es/table";
import { useCallback, useEffect, useState } from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { api, call, type Schemas } from "../../api/client";
import { newIdempotencyKey } from "../../api/idempotency";
import { useApi } from "../../api/useApi";
import { useMe } from "../../auth/AuthProvider";
import { PageTitle } from "../../components/PageTitle";
import { describeProblem, ProblemAlert } from "../../components/ProblemAlert";
import { useDepartments } from "../../data/reference";
import { formatDateTime } from "../../format/dates";
import { useI18n } from "../../i18n/I18nProvider";
import type { MessageKey } from "../../i18n/messages.zh-CN";
import {
  INBOX_FILTERS,
  MAX_COMMENT_CHARS,
  approvalProgress,
  approvalSlots,
  decisionBody,
  formatTimeLeft,
  inboxQuery,
  actionValueText,
  riskColor,
  shortSummary,
  timeLeftMs,
  type InboxFilter,
  type Verdict,
} from "./approvalView";

type ApprovalSummary = Schemas["ApprovalSummary"];
type ApprovalDetail = Schemas["ApprovalDetail"];

const REFRESH_MS = 5000;
const PAGE_SIZE = 50;

export function ApprovalsPage() {
  const { t } = useI18n();
  const { approvalId } = useParams();
  const [filter, setFilter] = useState<InboxFilter>("mine");
  const [extra, setExtra] = useState<ApprovalSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const first = useApi(() => call(api.GET("/api/v1/approvals", { params: { query: inboxQuery(filter, null, PAGE_SIZE) } })), [filter]);
  const reload = first.reload;
  useEffect(() => {
    setExtra([]);
    setCursor(first.data?.next_cursor ?? null);
  }, [first.data]);
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);

  const more = async () => {
    if (!cursor) return;
    const page = await call(api.GET("/api/v1/approvals", { params: { query: inboxQuery(filter, cursor, PAGE_SIZE) } }));
    setExtra((items) => [...items, ...page.items]);
    setCursor(page.next_cursor ?? null);
  };

  const items = [...(first.data?.items ?? []), ...extra];
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
      <Row gutter={16}>
        <Col xs={24} xl={approvalId ? 10 : 24}>
          <Card
            title={
              <Segmented<InboxFilter>
                value={filter}
                onChange={setFilter}
                data-testid="approvals-filter"
                options={INBOX_FILTERS.map((value) => ({ value, label: t(`approvals.filter.${value}` as MessageKey) }))}
              />
            }
            style={{ marginBottom: 16 }}
          >
            {first.error && <ProblemAlert problem={first.error} onRetry={reload} />}
            <InboxTable items={items} loading={first.loading && !first.data} filter={filter} selected={approvalId ?? null} />
            {cursor && (
              <Button style={{ marginTop: 12 }} onClick={() => void more()}>
                {t("approvals.more")}
              </Button>
            )}
          </Card>
        </Col>
        {approvalId && (
          <Col xs={24} xl={14}>
            <ApprovalPanel key={approvalId} approvalId={approvalId} onDecided={reload} />
          </Col>
        )}
      </Row>
    </>
  );
}

function InboxTable({
  items,
  loading,
  filter,
  selected,
}: {
  items: ApprovalSummary[];
  loading: boolean;
  filter: InboxFilter;
  selected: string | null;
}) {
  const { t, locale } = useI18n();
  const departments = useDepartments();
  const navigate = useNavigate();
  const columns: ColumnsType<ApprovalSummary> = [
    {
      title: t("approvals.col.action"),
      dataIndex: "action_summary",
      render: (summary: string, item) => (
        <Link to={`/approvals/${item.id}`} data-testid="approval-link" title={summary}>
          {shortSummary(summary, 48)}
        </Link>
      ),
    },
    {
      title: t("approvals.col.risk"),
      dataIndex: "risk_level",
      width: 90,
      render: (level: string) => <Tag color={riskColor(level)}>{t(`risk.${level}` as MessageKey)}</Tag>,
    },
    {
      title: t("approvals.col.progress"),
      width: 90,
      render: (_: unknown, item) => <Typography.Text>{approvalProgress(item).label}</Typography.Text>,
    },
    {
      title: t("tasks.col.department"),
      dataIndex: "dept_id",
      width: 100,
      render: (id: string | null) => departments.find((d) => d.id === id)?.name ?? id ?? "—",
    },
    {
      title: filter === "mine" || filter === "PENDING" ? t("approvals.col.timeLeft") : t("approvals.col.status"),
      width: 120,
      render: (_: unknown, item) =>
        item.status === "PENDING" ? (
          formatTimeLeft(timeLeftMs(item.expires_at), locale) || t("approvals.expired")
        ) : (
          <Tag color={item.status === "APPROVED" ? "green" : "red"}>{t(`approvals.status.${item.status}` as MessageKey)}</Tag>
        ),
    },
  ];
  return (
    <Table<ApprovalSummary>
      rowKey="id"
      size="middle"
      columns={columns}
      dataSource={items}
      loading={loading}
      pagination={false}
      data-testid="approvals-table"
      rowClassName={(item) => (item.id === selected ? "ant-table-row-selected" : "")}
      onRow={(item) => ({ onClick: () => navigate(`/approvals/${item.id}`), style: { cursor: "pointer" } })}
      locale={{ emptyText: <Empty description={t(filter === "mine" ? "approvals.empty" : "approvals.emptyFiltered")} /> }}
    />
  );
}

function ApprovalPanel({ approvalId, onDecided }: { approvalId: string; onDecided: () => void }) {
  const { t } = useI18n();
  const [detail, setDetail] = useState<ApprovalDetail | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const load = useCallback(() => {
    setProblem(null);
    call(api.GET("/api/v1/approvals/{approval_id}", { params: { path: { approval_id: approvalId } } }))
      .then(setDetail)
      .catch(setProblem);
  }, [approvalId]);
  useEffect(load, [load]);

  if (problem) return <ProblemAlert problem={problem} onRetry={load} />;
  if (!detail) return <Skeleton active />;
  return (
    <Card
      title={<span title={detail.action_summary}>{shortSummary(detail.action_summary, 80)}</span>}
      data-testid="approval-detail"
      extra={<Link to={`/tasks/${detail.run_id}`}>{t("approvals.openRun")}</Link>}
    >
      <ApprovalFacts detail={detail} />
      <Evidence detail={detail} />
      <DecisionForm
        detail={detail}
        onDecided={(decided) => {
          setDetail({ ...decided, evidence: detail.evidence });
          onDecided();
        }}
      />
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t("approvals.payloadHash")}: <Typography.Text code>{detail.payload_hash.slice(0, 16)}…</Typography.Text>
      </Typography.Text>
    </Card>
  );
}

function ApprovalFacts({ detail }: { detail: ApprovalDetail }) {
  const { t, locale } = useI18n();
  const progress = approvalProgress(detail);
  const requester = detail.requester ? detail.requester.display_name || detail.requester.username || detail.requester.user_id : t("approvals.platform");
  const left = formatTimeLeft(timeLeftMs(detail.expires_at), locale);
  return (
    <>
      <Space wrap style={{ marginBottom: 12 }}>
        <Tag color={riskColor(detail.risk_level)} data-testid="approval-risk">
          {t(`risk.${detail.risk_level}` as MessageKey)}
        </Tag>
        <Tag color={detail.status === "PENDING" ? "blue" : detail.status === "APPROVED" ? "green" : "red"} data-testid="approval-status" data-status={detail.status}>
          {t(`approvals.status.${detail.status}` as MessageKey)}
        </Tag>
      </Space>
      {detail.risk_reasons.length > 0 && (
        <Alert
          type={detail.risk_level === "critical" ? "error" : "warning"}
          showIcon
          style={{ marginBottom: 12 }}
          data-testid="approval-reasons"
          message={t("approvals.reasons")}
          description={
            <ul style={{ margin: 0, paddingInlineStart: 20 }}>
              {detail.risk_reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          }
        />
      )}
      <Descriptions size="small" column={1} bordered style={{ marginBottom: 12 }} data-testid="approval-action">
        {Object.entries(detail.action).map(([key, value]) => (
          <Descriptions.Item key={key} label={key}>
            {typeof value === "string" ? (
              value
            ) : (
              <pre style={{ margin: 0, fontSize: 12, whiteSpace: "pre-wrap", wordBreak: "break-all" }}>{actionValueText(value)}</pre>
            )}
          </Descriptions.Item>
        ))}
      </Descriptions>
      <Descriptions size="small" column={{ xs: 1, md: 2 }} style={{ marginBottom: 12 }}>
        <Descriptions.Item label={t("approvals.requester")}>{requester}</Descriptions.Item>
        <Descriptions.Item label={t("tasks.col.department")}>{detail.department?.name ?? detail.department?.id ?? "—"}</Descriptions.Item>
        <Descriptions.Item label={t("tasks.col.created")}>{formatDateTime(detail.created_at)}</Descriptions.Item>
        <Descriptions.Item label={t("approvals.deadline")}>
          {formatDateTime(detail.expires_at)}
          {detail.status === "PENDING" && <Typography.Text type="secondary">{` (${left || t("approvals.expired")})`}</Typography.Text>}
        </Descriptions.Item>
      </Descriptions>
      <div data-testid="approval-progress" style={{ marginBottom: 12 }}>
        <Typography.Text strong>{t("approvals.progress", { done: progress.done, required: progress.required })}</Typography.Text>
        <Progress percent={progress.percent} steps={progress.required} size={[48, 10]} showInfo={false} style={{ marginInlineStart: 12 }} />
        <Timeline
          style={{ marginTop: 12 }}
          items={approvalSlots(detail).map((slot) => ({
            color: slot.state === "approved" ? "green" : slot.state === "rejected" ? "red" : "gray",
            children:
              slot.state === "open"
                ? t("approvals.slot.open")
                : t(slot.state === "approved" ? "approvals.slot.approved" : "approvals.slot.rejected", { who: slot.who ?? "" }) +
                  (slot.comment ? ` — “${slot.comment}”` : ""),
          }))}
        />
      </div>
    </>
  );
}

function Evidence({ detail }: { detail: ApprovalDetail }) {
  const { t } = useI18n();
  const evidence = detail.evidence;
  return (
    <Card size="small" title={t("approvals.evidence")} style={{ marginBottom: 12 }} data-testid="approval-evidence">
      {evidence ? (
        <>
          <Image src={evidence.url} alt={t("approvals.evidence")} style={{ maxHeight: 360, objectFit: "contain" }} />
          <Typography.Paragraph type="secondary" style={{ fontSize: 12, marginTop: 8, marginBottom: 0 }}>
            {t(evidence.source === "request" ? "approvals.evidence.request" : "approvals.evidence.run")}
            {evidence.sha256 ? ` · SHA-256 ${evidence.sha256.slice(0, 16)}…` : ""}
          </Typography.Paragraph>
        </>
      ) : (
        <Empty description={t("approvals.evidence.none")} image={Empty.PRESENTED_IMAGE_SIMPLE} />
      )}
    </Card>
  );
}

function DecisionForm({ detail, onDecided }: { detail: ApprovalDetail; onDecided: (decided: ApprovalDetail) => void }) {
  const { t, locale } = useI18n();
  const me = useMe();
  const [comment, setComment] = useState("");
  const [busy, setBusy] = useState<Verdict | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [key] = useState(newIdempotencyKey);

  if (!detail.can_decide) {
    const code = detail.cannot_decide;
    const text = code ? t(`approvals.cannot.${code}` as MessageKey) : "";
    return (
      <Alert
        type={code === "not_pending" ? "success" : "info"}
        showIcon
        style={{ marginBottom: 12 }}
        data-testid="approval-cannot-decide"
        message={text}
        description={locale === "en" || !code ? detail.cannot_decide_reason : undefined}
      />
    );
  }

  const decide = async (verdict: Verdict) => {
    setFailure(null);
    const body = decisionBody(detail.payload_hash, verdict, comment);
    if (typeof body === "string") {
      setFailure(t(`approvals.draft.${body}` as MessageKey));
      return;
    }
    setBusy(verdict);
    try {
      const decided = await call(
        api.POST("/api/v1/approvals/{approval_id}/decision", {
          params: { path: { approval_id: detail.id }, header: { "Idempotency-Key": `${key}-${verdict}` } },
          body,
        }),
      );
      void message.success(t(verdict === "approve" ? "approvals.done.approved" : "approvals.done.rejected"));
      onDecided(decided);
    } catch (problem) {
      setFailure(describeProblem(problem, t, locale));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Card size="small" title={t("approvals.decide", { name: me.display_name || me.username })} style={{ marginBottom: 12 }} data-testid="approval-decide">
      {failure && <Alert type="error" showIcon role="alert" message={failure} style={{ marginBottom: 12 }} />}
      <Input.TextArea
        aria-label={t("approvals.comment")}
        placeholder={t("approvals.comment.placeholder")}
        value={comment}
        maxLength={MAX_COMMENT_CHARS}
        autoSize={{ minRows: 2, maxRows: 6 }}
        onChange={(event) => setComment(event.target.value)}
        style={{ marginBottom: 12 }}
      />
      <Space>
        <Button type="primary" icon={<CheckOutlined />} loading={busy === "approve"} disabled={busy !== null} onClick={() => void decide("approve")} data-testid="approve">
          {t("approvals.approve")}
        </Button>
        <Button danger icon={<CloseOutlined />} loading={busy === "reject"} disabled={busy !== null} onClick={() => void decide("reject")} data-testid="reject">
          {t("approvals.reject")}
        </Button>
      </Space>
    </Card>
  );
}
