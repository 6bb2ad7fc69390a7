/**
 * Policies (org admins): the organisation's own Cedar policies — add one (the server validates it against the
 * schema and the policies in force and answers with the validator's message when it does not hold), disable
 * one — and, read-only, the default set every organisation starts from. Adding and disabling are audited.
 */
import { PlusOutlined, StopOutlined } from "@ant-design/icons";
import { Alert, Button, Card, Col, Collapse, Empty, Form, Input, Popconfirm, Row, Space, Table, Tag, Typography } from "antd";
import type { ColumnsType } from "antd/es/table";
import { useState } from "react";
import { api, call, type Schemas } from "../../api/client";
import { newIdempotencyKey } from "../../api/idempotency";
import { ApiProblem } from "../../api/problem";
import { useApi } from "../../api/useApi";
import { describeProblem, ProblemAlert } from "../../components/ProblemAlert";
import { formatDateTime } from "../../format/dates";
import { useI18n } from "../../i18n/I18nProvider";
import type { MessageKey } from "../../i18n/messages.zh-CN";
import { effectColor, MAX_POLICY_CHARS, policyDraftProblem, policyOrder } from "./policyView";

type OrgPolicy = Schemas["OrgPolicyView"];
type PolicyRule = Schemas["PolicyRule"];

interface Draft {
  name: string;
  cedar_text: string;
}

const EXAMPLE = `@id("org.no_payments_at_night")
@reason("夜间（22:00 以后）不提交付款。")
forbid (principal, action == Action::"payment.submit", resource)
when { context.hour >= 22 };`;

export function PoliciesTab() {
  const { t, locale } = useI18n();
  const policies = useApi(() => call(api.GET("/api/v1/policies")), []);
  const [form] = Form.useForm<Draft>();
  const [failure, setFailure] = useState<{ title: string; detail: string } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [key, setKey] = useState(newIdempotencyKey);

  const add = async (draft: Draft) => {
    setFailure(null);
    setSaved(null);
    const problem = policyDraftProblem(draft.name, draft.cedar_text);
    if (problem) {
      setFailure({ title: t(`admin.policies.draft.${problem}` as MessageKey), detail: "" });
      return;
    }
    try {
      const added = await call(
        api.POST("/api/v1/policies", {
          params: { header: { "Idempotency-Key": key } },
          body: { name: draft.name.trim(), cedar_text: draft.cedar_text },
        }),
      );
      setSaved(t("admin.policies.added", { name: added.name, n: added.rules.length }));
      setKey(newIdempotencyKey());
      form.resetFields();
      policies.reload();
    } catch (error) {
      const invalid = error instanceof ApiProblem && error.code === "policy_invalid";
      setFailure(
        invalid
          ? { title: t("admin.policies.invalid"), detail: error.detail }
          : { title: describeProblem(error, t, locale), detail: "" },
      );
    }
  };

  const disable = async (policy: OrgPolicy) => {
    setFailure(null);
    setSaved(null);
    try {
      await call(api.POST("/api/v1/policies/{policy_id}/disable", { params: { path: { policy_id: policy.id } } }));
      setSaved(t("admin.policies.disabledDone", { name: policy.name }));
      policies.reload();
    } catch (error) {
      setFailure({ title: describeProblem(error, t, locale), detail: "" });
    }
  };

  const columns: ColumnsType<OrgPolicy> = [
    { title: t("admin.name"), dataIndex: "name", render: (name: string) => <Typography.Text strong>{name}</Typography.Text> },
    { title: t("admin.policies.rules"), dataIndex: "rules", render: (rules: PolicyRule[]) => <Rules rules={rules} /> },
    {
      title: t("admin.policies.state"),
      dataIndex: "enabled",
      width: 100,
      render: (enabled: boolean) => <Tag color={enabled ? "green" : "default"}>{t(enabled ? "admin.policies.enabled" : "admin.policies.disabled")}</Tag>,
    },
    { title: t("admin.credentials.updated"), dataIndex: "created_at", width: 170, render: (v: string) => formatDateTime(v) },
    {
      title: "",
      width: 90,
      render: (_: unknown, policy) =>
        policy.enabled ? (
          <Popconfirm title={t("admin.policies.disable.confirm", { name: policy.name })} onConfirm={() => void disable(policy)}>
            <Button size="small" danger icon={<StopOutlined />} data-testid="disable-policy">
              {t("admin.policies.disable")}
            </Button>
          </Popconfirm>
        ) : null,
    },
  ];

  return (
    <Row gutter={16}>
      <Col xs={24} xl={10}>
        <Card title={t("admin.policies.add")} style={{ marginBottom: 16 }}>
          <Alert type="info" showIcon message={t("admin.policies.help")} style={{ marginBottom: 16 }} />
          {failure && (
            <Alert
              type="error"
              showIcon
              role="alert"
              data-testid="policy-error"
              message={failure.title}
              description={failure.detail ? <Typography.Text code>{failure.detail}</Typography.Text> : undefined}
              style={{ marginBottom: 16 }}
            />
          )}
          {saved && <Alert type="success" showIcon message={saved} style={{ marginBottom: 16 }} />}
          <Form form={form} layout="vertical" onFinish={(v) => void add(v)} autoComplete="off">
            <Form.Item name="name" label={t("admin.name")} rules={[{ required: true, message: t("form.problem.required") }]}>
              <Input maxLength={200} placeholder={t("admin.policies.name.placeholder")} />
            </Form.Item>
            <Form.Item name="cedar_text" label={t("admin.policies.text")} rules={[{ required: true, message: t("form.problem.required") }]}>
              <Input.TextArea
                maxLength={MAX_POLICY_CHARS}
                autoSize={{ minRows: 8, maxRows: 20 }}
                placeholder={EXAMPLE}
                spellCheck={false}
                style={{ fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace", fontSize: 12 }}
              />
            </Form.Item>
            <Button type="primary" htmlType="submit" icon={<PlusOutlined />} data-testid="add-policy">
              {t("admin.policies.addButton")}
            </Button>
          </Form>
        </Card>
      </Col>
      <Col xs={24} xl={14}>
        <Card title={t("admin.policies.own")} style={{ marginBottom: 16 }}>
          {policies.error && <ProblemAlert problem={policies.error} onRetry={policies.reload} />}
          <Table<OrgPolicy>
            rowKey="id"
            size="small"
            columns={columns}
            dataSource={policyOrder(policies.data?.items ?? [])}
            loading={policies.loading && !policies.data}
            pagination={false}
            data-testid="policies-table"
            locale={{ emptyText: <Empty description={t("admin.policies.none")} /> }}
          />
        </Card>
        <Collapse
          items={[
            {
              key: "defaults",
              label: t("admin.policies.defaults", { n: policies.data?.defaults.rules.length ?? 0 }),
              children: policies.data ? (
                <Space direction="vertical" style={{ width: "100%" }}>
                  <Rules rules={policies.data.defaults.rules} withReasons />
                  <Typography.Paragraph>
                    <pre style={{ fontSize: 12, maxHeight: 320, overflow: "auto" }}>{policies.data.defaults.cedar_text}</pre>
                  </Typography.Paragraph>
                </Space>
              ) : null,
            },
          ]}
        />
      </Col>
    </Row>
  );
}

function Rules({ rules, withReasons = false }: { rules: PolicyRule[]; withReasons?: boolean }) {
  const { t } = useI18n();
  return (
    <Space direction="vertical" size={2}>
      {rules.map((rule) => (
        <span key={rule.policy_id}>
          <Tag color={effectColor(rule.effect)}>{t(`admin.policies.effect.${rule.effect}` as MessageKey)}</Tag>
          <Typography.Text code>{rule.policy_id}</Typography.Text>
          {withReasons && <Typography.Text type="secondary"> {rule.reason}</Typography.Text>}
        </span>
      ))}
    </Space>
  );
}
