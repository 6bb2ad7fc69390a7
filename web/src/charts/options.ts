/** Chart options built from API data: pure functions, so what each chart shows is testable without a canvas. */
import type { EChartsOption } from "echarts";

export const STATUS_COLORS: Record<string, string> = {
  COMPLETED: "#52c41a",
  RUNNING: "#1677ff",
  PENDING: "#bfbfbf",
  WAITING_APPROVAL: "#faad14",
  NEEDS_HUMAN: "#fa8c16",
  FAILED: "#f5222d",
  ABORTED: "#8c8c8c",
  TIMEOUT: "#eb2f96",
};

const STATUS_ORDER = Object.keys(STATUS_COLORS);

/** Runs by status as a doughnut; statuses with no run are left out, the order is fixed. */
export function statusChartOption(byStatus: Record<string, number>, label: (status: string) => string): EChartsOption {
  const data = STATUS_ORDER.filter((status) => (byStatus[status] ?? 0) > 0).map((status) => ({
    name: label(status),
    value: byStatus[status] ?? 0,
    itemStyle: { color: STATUS_COLORS[status] },
  }));
  return {
    tooltip: { trigger: "item", formatter: "{b}: {c} ({d}%)" },
    legend: { bottom: 0, type: "scroll" },
    series: [{ type: "pie", radius: ["45%", "70%"], center: ["50%", "45%"], data, label: { formatter: "{b}\n{c}" } }],
  };
}

export interface DailyPoint {
  day: string;
  value: number;
}

/** One value per day over [since, until], zero-filled so gaps show as zero instead of a joined line. */
export function fillDays(points: readonly DailyPoint[], since: string, until: string): DailyPoint[] {
  const byDay = new Map(points.map((p) => [p.day, p.value]));
  const out: DailyPoint[] = [];
  const day = new Date(`${since}T00:00:00Z`);
  const end = new Date(`${until}T00:00:00Z`);
  while (day <= end && out.length < 3660) {
    const key = day.toISOString().slice(0, 10);
    out.push({ day: key, value: byDay.get(key) ?? 0 });
    day.setUTCDate(day.getUTCDate() + 1);
  }
  return out;
}

export function dailyLineOption(points: readonly DailyPoint[], seriesName: string, format: (value: number) => string): EChartsOption {
  return {
    tooltip: { trigger: "axis", valueFormatter: (value) => format(Number(value)) },
    grid: { left: 56, right: 16, top: 24, bottom: 32 },
    xAxis: { type: "category", data: points.map((p) => p.day.slice(5)) },
    yAxis: { type: "value", axisLabel: { formatter: (value: number) => format(value) } },
    series: [{ name: seriesName, type: "line", smooth: true, areaStyle: { opacity: 0.15 }, data: points.map((p) => p.value) }],
  };
}

export interface BarRow {
  name: string;
  value: number;
}

/** Horizontal bars, largest first (cost per template, department or tier). */
export function barOption(rows: readonly BarRow[], seriesName: string, format: (value: number) => string): EChartsOption {
  const sorted = [...rows].sort((a, b) => a.value - b.value);
  return {
    tooltip: { trigger: "axis", axisPointer: { type: "shadow" }, valueFormatter: (value) => format(Number(value)) },
    grid: { left: 8, right: 48, top: 8, bottom: 8, containLabel: true },
    xAxis: { type: "value", axisLabel: { formatter: (value: number) => format(value) } },
    yAxis: { type: "category", data: sorted.map((r) => r.name) },
    series: [{ name: seriesName, type: "bar", data: sorted.map((r) => r.value), label: { show: true, position: "right", formatter: (p) => format(Number(p.value)) } }],
  };
}
