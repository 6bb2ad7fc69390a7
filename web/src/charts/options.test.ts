import { describe, expect, it } from "vitest";
import { barOption, fillDays, statusChartOption } from "./options";

describe("chart options", () => {
  it("shows only statuses that have runs, in a fixed order, with their labels", () => {
    const option = statusChartOption({ FAILED: 2, COMPLETED: 8, RUNNING: 0 }, (s) => `label:${s}`);
    const series = (option.series as { data: { name: string; value: number }[] }[])[0];
    expect(series?.data.map((d) => [d.name, d.value])).toEqual([
      ["label:COMPLETED", 8],
      ["label:FAILED", 2],
    ]);
  });

  it("fills days without data with zero across month ends", () => {
    const days = fillDays([{ day: "2026-02-27", value: 1.5 }, { day: "2026-03-02", value: 2 }], "2026-02-27", "2026-03-02");
    expect(days).toEqual([
      { day: "2026-02-27", value: 1.5 },
      { day: "2026-02-28", value: 0 },
      { day: "2026-03-01", value: 0 },
      { day: "2026-03-02", value: 2 },
    ]);
    expect(fillDays([], "2026-03-02", "2026-03-01")).toEqual([]);
  });

  it("puts the largest bar on top", () => {
    const option = barOption([{ name: "a", value: 1 }, { name: "b", value: 3 }], "USD", String);
    expect((option.yAxis as { data: string[] }).data).toEqual(["a", "b"]); // ECharts draws the last category on top
  });
});
