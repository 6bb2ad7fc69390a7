/**
 * Start a run from a template: pick the template, fill the form generated from its parameter schema, choose
 * the department when the user operates in several. One Idempotency-Key per opened form makes a double
 * submit start one run.
 */
import { ArrowLeftOutlined, PlayCircleOutlined } from "@ant-design/icons";
import { Alert, Button, Card, Col, Empty, Form, Row, Select, Space, Steps, Typography } from "antd";
import { useMemo, useState } from "react";
import { useNavigate, useSearchParams } from "react-router-dom";
import { api, call } from "../../api/client";
import { newIdempotencyKey } from "../../api/idempotency";
import { useMe } from "../../auth/AuthProvider";
import { PageTitle } from "../../components/PageTitle";
import { describeProblem } from "../../components/ProblemAlert";
import { useDepartments, useTemplates, type Template } from "../../data/reference";
import { ParameterForm } from "../../forms/ParameterForm";
import { fieldsFromSchema, type ArgumentValue, type ParameterSchema } from "../../forms/parameterFields";
import { useI18n } from "../../i18n/I18nProvider";
import { localizedName } from "../../i18n/translate";

function TemplateSummary({ template }: { template: Template }) {
  const { t } = useI18n();
  return (
    <Card size="small" title={t("create.steps")}>
      <Typography.Paragraph type="secondary">{template.description}</Typography.Paragraph>
      <Steps
        direction="vertical"
        size="small"
        current={-1}
        items={template.steps.map((step) => ({ title: step.name, description: <Typography.Text code>{step.skill}</Typography.Text> }))}
      />
    </Card>
  );
}

export function TaskCreatePage() {
  const { t, locale } = useI18n();
  const me = useMe();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const templates = useTemplates();
  const departments = useDepartments();
  const [form] = Form.useForm();
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);

  const templateId = params.get("template") ?? undefined;
  const template = templates.find((item) => item.id === templateId);
  const fields = useMemo(() => fieldsFromSchema(template?.parameters_schema as ParameterSchema | undefined), [template]);
  const operatorDepartments = me.departments.filter((d) => d.roles.includes("operator")).map((d) => d.department_id);
  const [deptId, setDeptId] = useState<string | undefined>(undefined);

  const chooseTemplate = (id: string) => {
    setParams({ template: id });
    setIdempotencyKey(newIdempotencyKey());
    setFailure(null);
    form.resetFields();
  };

  const submit = async (args: Record<string, ArgumentValue>) => {
    if (!template) return;
    setBusy(true);
    setFailure(null);
    try {
      const task = await call(
        api.POST("/api/v1/tasks", {
          params: { header: { "Idempotency-Key": idempotencyKey } },
          body: { template_id: template.id, parameters: args, dept_id: deptId ?? null },
        }),
      );
      navigate(`/tasks/${task.id}`);
    } catch (problem) {
      setFailure(describeProblem(problem, t, locale));
      setIdempotencyKey(newIdempotencyKey()); // a refused request created nothing: a corrected one is new
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageTitle
        title={t("tasks.new")}
        extra={
          <Button icon={<ArrowLeftOutlined />} onClick={() => navigate("/tasks")}>
            {t("menu.tasks")}
          </Button>
        }
      />
      <Card style={{ marginBottom: 16 }}>
        <Space wrap>
          <Typography.Text strong>{t("create.template")}</Typography.Text>
          <Select
            showSearch
            optionFilterProp="label"
            style={{ width: 320 }}
            placeholder={t("create.template.placeholder")}
            value={templateId}
            onChange={chooseTemplate}
            options={templates.map((item) => ({ value: item.id, label: localizedName(locale, item.name, item.name_en) }))}
            aria-label={t("create.template")}
          />
          {operatorDepartments.length > 1 && (
            <Select
              allowClear
              style={{ width: 200 }}
              placeholder={t("create.department")}
              value={deptId}
              onChange={setDeptId}
              options={operatorDepartments.map((id) => ({ value: id, label: departments.find((d) => d.id === id)?.name ?? id }))}
              aria-label={t("create.department")}
            />
          )}
        </Space>
      </Card>
      {!template ? (
        <Card>
          <Empty description={t("create.pickTemplate")} />
        </Card>
      ) : (
        <Row gutter={16}>
          <Col xs={24} lg={15}>
            <Card title={localizedName(locale, template.name, template.name_en)}>
              {failure && <Alert type="error" showIcon message={failure} style={{ marginBottom: 16 }} role="alert" />}
              <ParameterForm key={template.id} fields={fields} form={form} onSubmit={(args) => void submit(args)} disabled={busy}>
                <Button type="primary" htmlType="submit" icon={<PlayCircleOutlined />} loading={busy}>
                  {t("create.submit")}
                </Button>
              </ParameterForm>
            </Card>
          </Col>
          <Col xs={24} lg={9}>
            <TemplateSummary template={template} />
          </Col>
        </Row>
      )}
    </>
  );
}
