/** A run waiting for approval: the risk level and reasons behind it, how many approvals it needs, where to decide. */
import { Alert, Space, Tag, Typography } from "antd";
import { Link } from "react-router-dom";
import { useI18n } from "../../i18n/I18nProvider";
import type { MessageKey } from "../../i18n/messages.zh-CN";
import type { PendingApproval, RiskView } from "../../live/runView";
import { riskColor } from "../approvals/approvalView";

export function ApprovalWait({ approvals, risk }: { approvals: PendingApproval[]; risk: RiskView | null }) {
  const { t } = useI18n();
  const level = approvals[0]?.level ?? risk?.level ?? null;
  return (
    <Alert
      type="info"
      showIcon
      style={{ marginBottom: 16 }}
      data-testid="approval-wait"
      message={t("detail.waitingApproval")}
      description={
        <Space direction="vertical" size={4}>
          <Space wrap>
            {level && <Tag color={riskColor(level)}>{t(`risk.${level}` as MessageKey)}</Tag>}
            {approvals.map((approval) => (
              <Link key={approval.approval_id} to={`/approvals/${approval.approval_id}`}>
                {t("detail.approvalNeeded", { n: approval.required })}
              </Link>
            ))}
          </Space>
          {risk && risk.reasons.length > 0 && (
            <ul style={{ margin: 0, paddingInlineStart: 20 }}>
              {risk.reasons.map((reason) => (
                <li key={reason}>
                  <Typography.Text>{reason}</Typography.Text>
                </li>
              ))}
            </ul>
          )}
        </Space>
      }
    />
  );
}
