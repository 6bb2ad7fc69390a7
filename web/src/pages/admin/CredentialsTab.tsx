/**
 * The credential vault, write-only: names and metadata are listed, values never come back. Saving under an
 * existing name replaces the value (a new version). Templates refer to a credential as secret://<name>.
 */
import { DeleteOutlined, SaveOutlined } from "@ant-design/icons";
import { Alert, Button, Card, Col, Empty, Form, Input, Popconfirm, Row, Select, Table, Tag, Typography } from "antd";
import type { ColumnsType } from "antd/es/table";
import { useState } from "react";
import { api, call, type Schemas } from "../../api/client";
import { newIdempotencyKey } from "../../api/idempotency";
import { useApi } from "../../api/useApi";
import { describeProblem, ProblemAlert } from "../../components/ProblemAlert";
import { useDepartments } from "../../data/reference";
import { formatDateTime } from "../../format/dates";
import { useI18n } from "../../i18n/I18nProvider";
import type { MessageKey } from "../../i18n/messages.zh-CN";

type Credential = Schemas["Credential"];
type SecretKind = Schemas["SecretKind"];

interface CredentialValues {
  name: string;
  value: string;
  kind: SecretKind;
  dept_id?: string;
  description?: string;
}

const KINDS: SecretKind[] = ["password", "totp_seed", "token", "generic"];

export function CredentialsTab() {
  const { t, locale } = useI18n();
  const credentials = useApi(() => call(api.GET("/api/v1/credentials")), []);
  const departments = useDepartments();
  const [form] = Form.useForm<CredentialValues>();
  const [failure, setFailure] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const save = async (values: CredentialValues) => {
    setFailure(null);
    setSaved(null);
    try {
      const stored = await call(
        api.POST("/api/v1/credentials", {
          params: { header: { "Idempotency-Key": newIdempotencyKey() } },
          body: { name: values.name.trim(), value: values.value, kind: values.kind, dept_id: values.dept_id ?? null, description: values.description ?? "" },
        }),
      );
      setSaved(t("admin.credentials.saved", { reference: stored.reference, version: stored.version }));
      form.resetFields();
      credentials.reload();
    } catch (problem) {
      form.setFieldValue("value", ""); // never keep a secret in the page after a failed save
      setFailure(describeProblem(problem, t, locale));
    }
  };

  const remove = async (name: string) => {
    setFailure(null);
    try {
      await call(api.DELETE("/api/v1/credentials/{name}", { params: { path: { name } } }));
      credentials.reload();
    } catch (problem) {
      setFailure(describeProblem(problem, t, locale));
    }
  };

  const columns: ColumnsType<Credential> = [
    { title: t("admin.credentials.reference"), dataIndex: "reference", render: (v: string) => <Typography.Text code copyable>{v}</Typography.Text> },
    { title: t("admin.credentials.kind"), dataIndex: "kind", width: 120, render: (v: SecretKind) => <Tag>{t(`secret.${v}` as MessageKey)}</Tag> },
    { title: t("tasks.col.department"), dataIndex: "dept_id", width: 120, render: (id: string | null) => departments.find((d) => d.id === id)?.name ?? t("admin.allDepartments") },
    { title: t("catalogue.description"), dataIndex: "description", ellipsis: true },
    { title: t("admin.credentials.version"), dataIndex: "version", width: 70 },
    { title: t("admin.credentials.updated"), dataIndex: "updated_at", width: 170, render: (v: string) => formatDateTime(v) },
    {
      title: "",
      width: 60,
      render: (_: unknown, c) => (
        <Popconfirm title={t("admin.credentials.delete.confirm", { name: c.name })} onConfirm={() => void remove(c.name)}>
          <Button size="small" danger icon={<DeleteOutlined />} aria-label={t("admin.delete")} />
        </Popconfirm>
      ),
    },
  ];

  return (
    <Row gutter={16}>
      <Col xs={24} xl={9}>
        <Card title={t("admin.credentials.store")} style={{ marginBottom: 16 }}>
          <Alert type="info" showIcon message={t("admin.credentials.writeOnly")} style={{ marginBottom: 16 }} />
          {failure && <Alert type="error" showIcon message={failure} style={{ marginBottom: 16 }} />}
          {saved && <Alert type="success" showIcon message={saved} style={{ marginBottom: 16 }} />}
          <Form form={form} layout="vertical" onFinish={(v) => void save(v)} initialValues={{ kind: "password" }} autoComplete="off">
            <Form.Item name="name" label={t("admin.name")} extra={t("admin.credentials.name.help")} rules={[{ required: true, pattern: /^[A-Za-z0-9._/-]+$/, message: t("admin.credentials.name.help") }]}>
              <Input placeholder="bank-portal/password" />
            </Form.Item>
            <Form.Item name="value" label={t("admin.credentials.value")} rules={[{ required: true, message: t("form.problem.required") }]}>
              <Input.Password autoComplete="new-password" />
            </Form.Item>
            <Form.Item name="kind" label={t("admin.credentials.kind")}>
              <Select options={KINDS.map((k) => ({ value: k, label: t(`secret.${k}` as MessageKey) }))} />
            </Form.Item>
            <Form.Item name="dept_id" label={t("tasks.col.department")} extra={t("admin.credentials.dept.help")}>
              <Select allowClear options={departments.map((d) => ({ value: d.id, label: d.name }))} />
            </Form.Item>
            <Form.Item name="description" label={t("catalogue.description")}>
              <Input maxLength={500} />
            </Form.Item>
            <Button type="primary" htmlType="submit" icon={<SaveOutlined />}>
              {t("admin.credentials.save")}
            </Button>
          </Form>
        </Card>
      </Col>
      <Col xs={24} xl={15}>
        <Card title={t("admin.credentials.list")}>
          {credentials.error && <ProblemAlert problem={credentials.error} onRetry={credentials.reload} />}
          <Table<Credential>
            rowKey="name"
            size="small"
            pagination={false}
            loading={credentials.loading}
            columns={columns}
            dataSource={credentials.data ?? []}
            locale={{ emptyText: <Empty description={t("admin.credentials.empty")} /> }}
          />
        </Card>
      </Col>
    </Row>
  );
}
