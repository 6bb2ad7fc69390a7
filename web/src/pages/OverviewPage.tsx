/**
 * Overview: runs by status, success rate, LLM cost, cache hit rate, and a banner when the cache hit rate
 * dropped (a portal may have changed). Daily LLM cost over the chosen days.
 */
import { Alert, Button, Card, Col, Empty, Row, Statistic } from "antd";
import { useNavigate } from "react-router-dom";
import { api, call } from "../api/client";
import { useApi } from "../api/useApi";
import { Chart } from "../charts/Chart";
import { dailyLineOption, fillDays, statusChartOption } from "../charts/options";
import { DayRangePicker, useDayRange } from "../components/DateRange";
import { PageTitle } from "../components/PageTitle";
import { ProblemAlert } from "../components/ProblemAlert";
import { formatCount, formatPercent, formatUsd } from "../format/amounts";
import { useI18n } from "../i18n/I18nProvider";
import type { MessageKey } from "../i18n/messages.zh-CN";

export function OverviewPage() {
  const { t, locale } = useI18n();
  const navigate = useNavigate();
  const [range, setRange] = useDayRange();
  const summary = useApi(() => call(api.GET("/api/v1/metrics/summary", { params: { query: range } })), [range.since, range.until]);
  const daily = useApi(
    () => call(api.GET("/api/v1/metrics/costs", { params: { query: { ...range, group_by: ["day"] } } })),
    [range.since, range.until],
  );
  const data = summary.data;
  const costPoints = fillDays(
    (daily.data ?? []).filter((row) => row.day).map((row) => ({ day: row.day ?? "", value: Number(row.cost_usd) })),
    range.since,
    range.until,
  );

  return (
    <>
      <PageTitle title={t("menu.overview")} extra={<DayRangePicker value={range} onChange={setRange} />} />
      {summary.error && <ProblemAlert problem={summary.error} onRetry={summary.reload} />}
      {data?.cache_alert && (
        <Alert
          type="warning"
          showIcon
          banner
          style={{ marginBottom: 16 }}
          data-testid="cache-alert"
          message={t("overview.cacheAlert", {
            recent: formatPercent(data.cache_alert.recent_rate, locale),
            baseline: formatPercent(data.cache_alert.baseline_rate, locale),
            day: data.cache_alert.day,
          })}
          description={data.cache_alert.message}
        />
      )}
      <Row gutter={[16, 16]}>
        <Col xs={12} lg={6}>
          <Card loading={summary.loading && !data}>
            <Statistic title={t("overview.runs")} value={formatCount(data?.runs_total, locale)} />
          </Card>
        </Col>
        <Col xs={12} lg={6}>
          <Card loading={summary.loading && !data}>
            <Statistic title={t("overview.successRate")} value={formatPercent(data?.success_rate, locale)} />
          </Card>
        </Col>
        <Col xs={12} lg={6}>
          <Card loading={summary.loading && !data}>
            <Statistic title={t("overview.llmCost")} value={data ? formatUsd(data.llm.cost_usd) : "—"} />
          </Card>
        </Col>
        <Col xs={12} lg={6}>
          <Card loading={summary.loading && !data}>
            <Statistic title={t("overview.cacheHitRate")} value={formatPercent(data?.cache_hit_rate, locale)} />
          </Card>
        </Col>
        <Col xs={24} lg={10}>
          <Card title={t("overview.byStatus")} loading={!data && !summary.error}>
            {data && data.runs_total > 0 ? (
              <Chart
                label={t("overview.byStatus")}
                option={statusChartOption(data.runs_by_status as Record<string, number>, (s) => t(`status.${s}` as MessageKey))}
              />
            ) : (
              <Empty description={t("overview.noRuns")}>
                <Button type="primary" onClick={() => navigate("/tasks/new")}>
                  {t("tasks.new")}
                </Button>
              </Empty>
            )}
          </Card>
        </Col>
        <Col xs={24} lg={14}>
          <Card title={t("overview.dailyCost")} loading={!daily.data && !daily.error}>
            {daily.error ? (
              <ProblemAlert problem={daily.error} onRetry={daily.reload} />
            ) : costPoints.some((p) => p.value > 0) ? (
              <Chart label={t("overview.dailyCost")} option={dailyLineOption(costPoints, "USD", (v) => formatUsd(v))} />
            ) : (
              <Empty description={t("overview.noCost")} />
            )}
          </Card>
        </Col>
      </Row>
    </>
  );
}
