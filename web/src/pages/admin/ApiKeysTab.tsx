/** Service API keys: list (never the keys), create (the key is shown once), revoke. */
import { PlusOutlined } from "@ant-design/icons";
import { Alert, Button, Card, DatePicker, Empty, Form, Input, Modal, Popconfirm, Select, Table, Tag, Typography } from "antd";
import type { ColumnsType } from "antd/es/table";
import type { Dayjs } from "dayjs";
import { useState } from "react";
import { api, call, type Schemas } from "../../api/client";
import { useApi } from "../../api/useApi";
import { describeProblem, ProblemAlert } from "../../components/ProblemAlert";
import { formatDateTime } from "../../format/dates";
import { useI18n } from "../../i18n/I18nProvider";

type ApiKey = Schemas["ApiKeyView"];
type Scope = Schemas["Action"];

const SCOPES: Scope[] = ["read", "operate", "approve", "audit", "admin"];

interface KeyValues {
  user_id: string;
  name: string;
  scopes: Scope[];
  expires_at?: Dayjs;
}

export function ApiKeysTab() {
  const { t, locale } = useI18n();
  const keys = useApi(() => call(api.GET("/api/v1/api-keys")), []);
  const users = useApi(() => call(api.GET("/api/v1/users")), []);
  const [form] = Form.useForm<KeyValues>();
  const [creating, setCreating] = useState(false);
  const [issued, setIssued] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const userName = (id: string) => users.data?.find((u) => u.id === id)?.username ?? id;

  const create = async (values: KeyValues) => {
    setFailure(null);
    try {
      const key = await call(
        api.POST("/api/v1/api-keys", {
          body: { user_id: values.user_id, name: values.name.trim(), scopes: values.scopes, expires_at: values.expires_at?.toISOString() ?? null },
        }),
      );
      setCreating(false);
      form.resetFields();
      setIssued(key.key);
      keys.reload();
    } catch (problem) {
      setFailure(describeProblem(problem, t, locale));
    }
  };

  const revoke = async (prefix: string) => {
    setFailure(null);
    try {
      await call(api.DELETE("/api/v1/api-keys/{prefix}", { params: { path: { prefix } } }));
      keys.reload();
    } catch (problem) {
      setFailure(describeProblem(problem, t, locale));
    }
  };

  const columns: ColumnsType<ApiKey> = [
    { title: t("admin.name"), dataIndex: "name" },
    { title: t("admin.apiKeys.prefix"), dataIndex: "prefix", render: (v: string) => <Typography.Text code>{v}…</Typography.Text> },
    { title: t("login.username"), dataIndex: "user_id", render: (v: string) => userName(v) },
    { title: t("admin.apiKeys.scopes"), dataIndex: "scopes", render: (v: string[]) => v.map((s) => <Tag key={s}>{s}</Tag>) },
    { title: t("admin.apiKeys.expires"), dataIndex: "expires_at", render: (v: string | null) => formatDateTime(v) },
    { title: t("admin.apiKeys.lastUsed"), dataIndex: "last_used_at", render: (v: string | null) => formatDateTime(v) },
    {
      title: "",
      width: 100,
      render: (_: unknown, key) =>
        key.revoked_at ? (
          <Tag>{t("admin.apiKeys.revoked")}</Tag>
        ) : (
          <Popconfirm title={t("admin.apiKeys.revoke.confirm")} onConfirm={() => void revoke(key.prefix)}>
            <Button size="small" danger>
              {t("admin.apiKeys.revoke")}
            </Button>
          </Popconfirm>
        ),
    },
  ];

  return (
    <Card>
      {keys.error && <ProblemAlert problem={keys.error} onRetry={keys.reload} />}
      {failure && <Alert type="error" showIcon message={failure} style={{ marginBottom: 16 }} />}
      <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} style={{ marginBottom: 16 }}>
        {t("admin.apiKeys.new")}
      </Button>
      <Table<ApiKey>
        rowKey="prefix"
        size="small"
        pagination={false}
        loading={keys.loading}
        columns={columns}
        dataSource={keys.data ?? []}
        locale={{ emptyText: <Empty description={t("admin.apiKeys.empty")} /> }}
      />
      <Modal open={creating} title={t("admin.apiKeys.new")} onCancel={() => setCreating(false)} onOk={() => form.submit()} destroyOnClose>
        <Form form={form} layout="vertical" onFinish={(v) => void create(v)}>
          <Form.Item name="user_id" label={t("admin.apiKeys.actsAs")} rules={[{ required: true, message: t("form.problem.required") }]}>
            <Select options={(users.data ?? []).map((u) => ({ value: u.id, label: `${u.username}${u.kind === "service" ? " (service)" : ""}` }))} />
          </Form.Item>
          <Form.Item name="name" label={t("admin.name")} rules={[{ required: true, message: t("form.problem.required") }]}>
            <Input />
          </Form.Item>
          <Form.Item name="scopes" label={t("admin.apiKeys.scopes")} rules={[{ required: true, message: t("form.problem.required") }]}>
            <Select mode="multiple" options={SCOPES.map((s) => ({ value: s, label: s }))} />
          </Form.Item>
          <Form.Item name="expires_at" label={t("admin.apiKeys.expires")}>
            <DatePicker showTime />
          </Form.Item>
        </Form>
      </Modal>
      <Modal open={issued !== null} title={t("admin.apiKeys.issued")} onCancel={() => setIssued(null)} onOk={() => setIssued(null)} cancelButtonProps={{ style: { display: "none" } }}>
        <Alert type="warning" showIcon message={t("admin.apiKeys.once")} style={{ marginBottom: 16 }} />
        <Typography.Paragraph copyable className="mono">
          {issued}
        </Typography.Paragraph>
      </Modal>
    </Card>
  );
}
