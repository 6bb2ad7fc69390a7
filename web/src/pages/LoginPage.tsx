/** Sign in with organisation, username and password; the language switch is on this page too. */
import { LockOutlined, BankOutlined, UserOutlined } from "@ant-design/icons";
import { Alert, Button, Card, Form, Input, Space, Typography } from "antd";
import { useState } from "react";
import { useAuth } from "../auth/AuthProvider";
import { describeProblem } from "../components/ProblemAlert";
import { useI18n } from "../i18n/I18nProvider";
import { LanguageSwitch } from "../i18n/LanguageSwitch";

interface LoginValues {
  org: string;
  username: string;
  password: string;
}

const LAST_ORG_KEY = "finrpa.lastOrg";

function lastOrg(): string {
  try {
    return window.localStorage.getItem(LAST_ORG_KEY) ?? "";
  } catch {
    return "";
  }
}

export function LoginPage() {
  const { t, locale } = useI18n();
  const { signIn } = useAuth();
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (values: LoginValues) => {
    setBusy(true);
    setFailure(null);
    try {
      await signIn(values.org.trim(), values.username.trim(), values.password);
      try {
        window.localStorage.setItem(LAST_ORG_KEY, values.org.trim());
      } catch {
        // not remembered; nothing else depends on it
      }
    } catch (problem) {
      setFailure(t("login.failed", { detail: describeProblem(problem, t, locale) }));
    } finally {
      setBusy(false);
    }
  };

  const required = (field: string) => [{ required: true, message: t("login.required", { field }) }];

  return (
    <div className="login-page">
      <Card className="login-card" title={<Typography.Title level={3} style={{ margin: 0 }}>{t("login.title")}</Typography.Title>}
        extra={<LanguageSwitch />}>
        <Typography.Paragraph type="secondary">{t("login.subtitle")}</Typography.Paragraph>
        {failure && <Alert type="error" showIcon message={failure} style={{ marginBottom: 16 }} role="alert" />}
        <Form<LoginValues> layout="vertical" onFinish={submit} initialValues={{ org: lastOrg() }} requiredMark={false}>
          <Form.Item name="org" label={t("login.org")} rules={required(t("login.org"))}>
            <Input prefix={<BankOutlined />} placeholder={t("login.org.placeholder")} autoComplete="organization" />
          </Form.Item>
          <Form.Item name="username" label={t("login.username")} rules={required(t("login.username"))}>
            <Input prefix={<UserOutlined />} autoComplete="username" />
          </Form.Item>
          <Form.Item name="password" label={t("login.password")} rules={required(t("login.password"))}>
            <Input.Password prefix={<LockOutlined />} autoComplete="current-password" />
          </Form.Item>
          <Space direction="vertical" style={{ width: "100%" }}>
            <Button type="primary" htmlType="submit" block loading={busy}>
              {t("login.submit")}
            </Button>
          </Space>
        </Form>
      </Card>
    </div>
  );
}
