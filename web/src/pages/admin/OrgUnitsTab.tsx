/** Departments or business lines: the list and a form to add one (org admins). */
import { PlusOutlined } from "@ant-design/icons";
import { Alert, Button, Card, Empty, Form, Input, Space, Table } from "antd";
import { useState } from "react";
import { api, call, type Schemas } from "../../api/client";
import { newIdempotencyKey } from "../../api/idempotency";
import { useApi } from "../../api/useApi";
import { describeProblem, ProblemAlert } from "../../components/ProblemAlert";
import { forgetReferenceData } from "../../data/reference";
import { formatDateTime } from "../../format/dates";
import { useI18n } from "../../i18n/I18nProvider";

type OrgUnit = Schemas["OrgUnit"];
type Kind = "departments" | "business-lines";

function listUnits(kind: Kind): Promise<OrgUnit[]> {
  return kind === "departments" ? call(api.GET("/api/v1/departments")) : call(api.GET("/api/v1/business-lines"));
}

function createUnit(kind: Kind, body: { code: string; name: string }): Promise<OrgUnit> {
  const params = { header: { "Idempotency-Key": newIdempotencyKey() } };
  return kind === "departments"
    ? call(api.POST("/api/v1/departments", { params, body }))
    : call(api.POST("/api/v1/business-lines", { params, body }));
}

export function OrgUnitsTab({ kind, canEdit }: { kind: Kind; canEdit: boolean }) {
  const { t, locale } = useI18n();
  const units = useApi(() => listUnits(kind), [kind]);
  const [form] = Form.useForm<{ code: string; name: string }>();
  const [failure, setFailure] = useState<string | null>(null);

  const add = async (values: { code: string; name: string }) => {
    setFailure(null);
    try {
      await createUnit(kind, { code: values.code.trim(), name: values.name.trim() });
      form.resetFields();
      forgetReferenceData();
      units.reload();
    } catch (problem) {
      setFailure(describeProblem(problem, t, locale));
    }
  };

  return (
    <Card>
      {units.error && <ProblemAlert problem={units.error} onRetry={units.reload} />}
      {canEdit && (
        <Form form={form} layout="inline" onFinish={(v) => void add(v)} style={{ marginBottom: 16 }}>
          <Form.Item name="code" label={t("admin.code")} rules={[{ required: true, message: t("form.problem.required") }]}>
            <Input style={{ width: 160 }} placeholder={kind === "departments" ? "ops" : "corporate"} />
          </Form.Item>
          <Form.Item name="name" label={t("admin.name")} rules={[{ required: true, message: t("form.problem.required") }]}>
            <Input style={{ width: 220 }} placeholder={kind === "departments" ? "运营部" : "公司业务"} />
          </Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" icon={<PlusOutlined />}>
              {t("admin.add")}
            </Button>
          </Space>
        </Form>
      )}
      {failure && <Alert type="error" showIcon message={failure} style={{ marginBottom: 16 }} />}
      <Table<OrgUnit>
        rowKey="id"
        size="small"
        pagination={false}
        loading={units.loading}
        dataSource={units.data ?? []}
        columns={[
          { title: t("admin.code"), dataIndex: "code", width: 200 },
          { title: t("admin.name"), dataIndex: "name" },
          { title: t("tasks.col.created"), dataIndex: "created_at", width: 200, render: (v: string) => formatDateTime(v) },
        ]}
        locale={{ emptyText: <Empty description={t(kind === "departments" ? "admin.departments.empty" : "admin.lines.empty")} /> }}
      />
    </Card>
  );
}
