/**
 * Policies. The HTTP API has no policy routes yet, so this tab says where policies are managed today (the
 * command line) instead of pretending to list them.
 */
import { Alert, Card, Typography } from "antd";
import { useI18n } from "../../i18n/I18nProvider";

export function PoliciesTab() {
  const { t } = useI18n();
  return (
    <Card>
      <Alert type="info" showIcon message={t("admin.policies.cli")} style={{ marginBottom: 16 }} />
      <Typography.Paragraph>{t("admin.policies.validate")}</Typography.Paragraph>
      <Typography.Paragraph>
        <Typography.Text code>finrpa policy validate my-policies.cedar</Typography.Text>
      </Typography.Paragraph>
      <Typography.Paragraph>{t("admin.policies.schema")}</Typography.Paragraph>
      <Typography.Paragraph>
        <Typography.Text code>finrpa policy schema</Typography.Text>
      </Typography.Paragraph>
    </Card>
  );
}
