/**
 * LLM cost: totals, USD per tier, template and department, cache hit rate per template, and the model
 * router's decisions (tier chosen per page complexity, promotions after repeated failures).
 */
import { Card, Col, Empty, Row, Statistic, Table, Tag } from "antd";
import type { ColumnsType } from "antd/es/table";
import { api, call, type Schemas } from "../api/client";
import { useApi } from "../api/useApi";
import { Chart } from "../charts/Chart";
import { barOption } from "../charts/options";
import { DayRangePicker, useDayRange, type DayRange } from "../components/DateRange";
import { PageTitle } from "../components/PageTitle";
import { ProblemAlert } from "../components/ProblemAlert";
import { useDepartments, useTemplates } from "../data/reference";
import { formatCount, formatPercent, formatUsd } from "../format/amounts";
import { useI18n } from "../i18n/I18nProvider";
import { localizedName } from "../i18n/translate";
import type { MessageKey } from "../i18n/messages.zh-CN";

type CostRow = Schemas["CostRow"];
type Dimension = "tier" | "template" | "department";

function useCosts(range: DayRange, dimension: Dimension) {
  return useApi(
    () => call(api.GET("/api/v1/metrics/costs", { params: { query: { ...range, group_by: [dimension] } } })),
    [range.since, range.until, dimension],
  );
}

function CostBars({ rows, name, title, loading }: { rows: CostRow[] | undefined; name: (row: CostRow) => string; title: string; loading: boolean }) {
  const { t } = useI18n();
  const data = (rows ?? []).map((row) => ({ name: name(row), value: Number(row.cost_usd) })).filter((r) => r.value > 0);
  return (
    <Card title={title} loading={loading && !rows}>
      {data.length > 0 ? (
        <Chart label={title} height={Math.max(160, data.length * 40)} option={barOption(data, "USD", (v) => formatUsd(v))} />
      ) : (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("cost.none.short")} />
      )}
    </Card>
  );
}

export function CostPage() {
  const { t, locale } = useI18n();
  const [range, setRange] = useDayRange();
  const templates = useTemplates();
  const departments = useDepartments();
  const summary = useApi(() => call(api.GET("/api/v1/metrics/summary", { params: { query: range } })), [range.since, range.until]);
  const byTier = useCosts(range, "tier");
  const byTemplate = useCosts(range, "template");
  const byDepartment = useCosts(range, "department");
  const decisions = useApi(() => call(api.GET("/api/v1/metrics/router-decisions", { params: { query: range } })), [range.since, range.until]);
  const llm = summary.data?.llm;
  const error = summary.error ?? byTier.error ?? byTemplate.error ?? byDepartment.error ?? decisions.error;

  const templateName = (id: string | null) => {
    const template = templates.find((item) => item.id === id);
    return template ? localizedName(locale, template.name, template.name_en) : (id ?? t("cost.noTemplate"));
  };
  const departmentName = (id: string | null) => departments.find((d) => d.id === id)?.name ?? id ?? "—";

  const templateColumns: ColumnsType<CostRow> = [
    { title: t("tasks.col.template"), dataIndex: "template", render: (id: string | null) => templateName(id) },
    { title: t("cost.calls"), dataIndex: "calls", align: "right", render: (v: number) => formatCount(v, locale) },
    { title: t("cost.llmCalls"), dataIndex: "llm_calls", align: "right", render: (v: number) => formatCount(v, locale) },
    { title: t("overview.cacheHitRate"), dataIndex: "cache_hit_rate", align: "right", render: (v: number | null) => formatPercent(v, locale) },
    { title: t("cost.tokens"), align: "right", render: (_: unknown, row) => formatCount(row.input_tokens + row.output_tokens, locale) },
    { title: "USD", dataIndex: "cost_usd", align: "right", render: (v: string) => formatUsd(v) },
  ];
  const decisionColumns: ColumnsType<Schemas["RouterDecisionRow"]> = [
    { title: t("cost.complexity"), dataIndex: "complexity", render: (v: string) => t(`cost.complexity.${v}` as MessageKey) },
    { title: t("cost.tier"), dataIndex: "tier", render: (v: string) => <Tag>{v}</Tag> },
    { title: t("cost.promoted"), dataIndex: "promoted", render: (v: boolean) => (v ? <Tag color="orange">{t("cost.promoted.yes")}</Tag> : "") },
    { title: t("cost.decisions"), dataIndex: "decisions", align: "right", render: (v: number) => formatCount(v, locale) },
  ];

  return (
    <>
      <PageTitle title={t("menu.cost")} extra={<DayRangePicker value={range} onChange={setRange} />} />
      {error && <ProblemAlert problem={error} />}
      <Row gutter={[16, 16]}>
        {[
          { key: "overview.llmCost", value: llm ? formatUsd(llm.cost_usd) : "—" },
          { key: "cost.calls", value: formatCount(llm?.calls, locale) },
          { key: "cost.llmCalls", value: formatCount(llm?.llm_calls, locale) },
          { key: "overview.cacheHitRate", value: formatPercent(summary.data?.cache_hit_rate, locale) },
          { key: "cost.inputTokens", value: formatCount(llm?.input_tokens, locale) },
          { key: "cost.outputTokens", value: formatCount(llm?.output_tokens, locale) },
        ].map((item) => (
          <Col xs={12} md={8} xl={4} key={item.key}>
            <Card loading={summary.loading && !summary.data}>
              <Statistic title={t(item.key as MessageKey)} value={item.value} />
            </Card>
          </Col>
        ))}
        <Col xs={24} lg={8}>
          <CostBars rows={byTier.data} name={(r) => r.tier ?? "—"} title={t("cost.byTier")} loading={byTier.loading} />
        </Col>
        <Col xs={24} lg={8}>
          <CostBars rows={byTemplate.data} name={(r) => templateName(r.template)} title={t("cost.byTemplate")} loading={byTemplate.loading} />
        </Col>
        <Col xs={24} lg={8}>
          <CostBars rows={byDepartment.data} name={(r) => departmentName(r.department)} title={t("cost.byDepartment")} loading={byDepartment.loading} />
        </Col>
        <Col xs={24} xl={14}>
          <Card title={t("cost.perTemplate")}>
            <Table<CostRow>
              rowKey={(row) => row.template ?? "-"}
              size="small"
              pagination={false}
              columns={templateColumns}
              dataSource={byTemplate.data ?? []}
              locale={{ emptyText: <Empty description={t("cost.none")} /> }}
            />
          </Card>
        </Col>
        <Col xs={24} xl={10}>
          <Card title={t("cost.router")}>
            <Table
              rowKey={(row) => `${row.complexity}-${row.tier}-${row.promoted}`}
              size="small"
              pagination={false}
              columns={decisionColumns}
              dataSource={decisions.data ?? []}
              locale={{ emptyText: <Empty description={t("cost.router.none")} /> }}
            />
          </Card>
        </Col>
      </Row>
    </>
  );
}
