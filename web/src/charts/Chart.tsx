/**
 * ECharts with only the pieces the dashboard draws (pie, bar, line; tooltip, legend, grid), so the bundle
 * carries no map or 3D code. Charts render on canvas, resize with their container and do not animate (figures
 * a person reads at a glance, and screenshots that show them finished).
 */
import { BarChart, LineChart, PieChart } from "echarts/charts";
import { DatasetComponent, GridComponent, LegendComponent, TitleComponent, TooltipComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";
import ReactEChartsCore from "echarts-for-react/lib/core";
import type { EChartsOption } from "echarts";

echarts.use([BarChart, LineChart, PieChart, DatasetComponent, GridComponent, LegendComponent, TitleComponent, TooltipComponent, CanvasRenderer]);

export function Chart({ option, height = 280, label }: { option: EChartsOption; height?: number; label: string }) {
  return (
    <div role="img" aria-label={label}>
      <ReactEChartsCore echarts={echarts} option={{ animation: false, ...option }} notMerge style={{ height }} opts={{ renderer: "canvas" }} />
    </div>
  );
}
