/**
 * The catalogue: workflow templates (parameters, steps, a button to start one) and skills (side-effect
 * class, failure strategy, capabilities, timeout, parameter schema).
 */
import { PlayCircleOutlined } from "@ant-design/icons";
import { Button, Card, Col, Descriptions, Row, Space, Table, Tabs, Tag, Typography } from "antd";
import type { ColumnsType } from "antd/es/table";
import { useNavigate } from "react-router-dom";
import { api, call, type Schemas } from "../api/client";
import { useApi } from "../api/useApi";
import { PageTitle } from "../components/PageTitle";
import { ProblemAlert } from "../components/ProblemAlert";
import { fieldsFromSchema, type ParameterSchema } from "../forms/parameterFields";
import { useI18n } from "../i18n/I18nProvider";
import { localizedName } from "../i18n/translate";
import type { MessageKey } from "../i18n/messages.zh-CN";

type Template = Schemas["Template"];
type Skill = Schemas["Skill"];

const EFFECT_COLORS: Record<string, string> = { read: "green", write: "orange", irreversible: "red" };

function TemplateCard({ template }: { template: Template }) {
  const { t, locale } = useI18n();
  const navigate = useNavigate();
  const fields = fieldsFromSchema(template.parameters_schema as ParameterSchema);
  return (
    <Card
      title={localizedName(locale, template.name, template.name_en)}
      extra={
        <Button type="primary" size="small" icon={<PlayCircleOutlined />} onClick={() => navigate(`/tasks/new?template=${template.id}`)}>
          {t("catalogue.start")}
        </Button>
      }
      style={{ height: "100%" }}
    >
      <Typography.Paragraph type="secondary">{template.description}</Typography.Paragraph>
      <Descriptions size="small" column={1}>
        <Descriptions.Item label="ID">
          <Typography.Text code>{template.id}</Typography.Text> v{template.version}
        </Descriptions.Item>
        <Descriptions.Item label={t("catalogue.domain")}>
          <Tag>{t(`catalogue.domain.${template.domain}` as MessageKey)}</Tag>
        </Descriptions.Item>
        <Descriptions.Item label={t("catalogue.parameters")}>
          <Space size={[0, 4]} wrap>
            {fields.map((f) => (
              <Tag key={f.name} color={f.kind === "secret" ? "red" : f.required ? "blue" : "default"}>
                {f.title}
              </Tag>
            ))}
          </Space>
        </Descriptions.Item>
        <Descriptions.Item label={t("create.steps")}>
          {template.steps.map((s) => s.name).join(" → ")}
        </Descriptions.Item>
      </Descriptions>
    </Card>
  );
}

export function CataloguePage() {
  const { t } = useI18n();
  const templates = useApi(() => call(api.GET("/api/v1/templates")), []);
  const skills = useApi(() => call(api.GET("/api/v1/skills")), []);

  const skillColumns: ColumnsType<Skill> = [
    { title: t("catalogue.skill"), dataIndex: "name", width: 200, render: (v: string, s) => <><Typography.Text code>{v}</Typography.Text> <Typography.Text type="secondary">v{s.version}</Typography.Text></> },
    { title: t("catalogue.description"), dataIndex: "description" },
    { title: t("catalogue.sideEffect"), dataIndex: "side_effect", width: 110, render: (v: string) => <Tag color={EFFECT_COLORS[v] ?? "default"}>{t(`catalogue.effect.${v}` as MessageKey)}</Tag> },
    { title: t("catalogue.onFailure"), dataIndex: "error_strategy", width: 100, render: (v: string) => <Tag>{v}</Tag> },
    { title: t("catalogue.timeout"), dataIndex: "timeout_s", width: 90, align: "right", render: (v: number) => `${v} s` },
    { title: t("catalogue.capabilities"), dataIndex: "required_capabilities", width: 220, render: (v: string[]) => v.map((c) => <Tag key={c}>{c}</Tag>) },
  ];

  return (
    <>
      <PageTitle title={t("menu.catalogue")} />
      {(templates.error ?? skills.error) && <ProblemAlert problem={templates.error ?? skills.error} />}
      <Tabs
        items={[
          {
            key: "templates",
            label: t("catalogue.templates"),
            children: (
              <Row gutter={[16, 16]}>
                {(templates.data ?? []).map((template) => (
                  <Col xs={24} lg={12} xxl={8} key={template.id}>
                    <TemplateCard template={template} />
                  </Col>
                ))}
              </Row>
            ),
          },
          {
            key: "skills",
            label: t("catalogue.skills"),
            children: (
              <Card>
                <Table<Skill>
                  rowKey="name"
                  size="small"
                  pagination={false}
                  loading={skills.loading}
                  columns={skillColumns}
                  dataSource={skills.data ?? []}
                  expandable={{
                    expandedRowRender: (skill) => (
                      <pre className="mono" style={{ margin: 0, maxHeight: 320, overflow: "auto" }}>
                        {JSON.stringify(skill.params_schema, null, 2)}
                      </pre>
                    ),
                  }}
                />
              </Card>
            ),
          },
        ]}
      />
    </>
  );
}
