import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime, formatDuration } from "./dates";

describe("dates", () => {
  it("writes timestamps as YYYY-MM-DD HH:mm:ss in the given time zone", () => {
    expect(formatDateTime("2026-01-05T00:00:03Z", "Asia/Shanghai")).toBe("2026-01-05 08:00:03");
    expect(formatDateTime("2026-01-05T23:30:00+08:00", "UTC")).toBe("2026-01-05 15:30:00");
  });

  it("uses 00 for midnight, not 24", () => {
    expect(formatDateTime("2026-03-01T16:00:00Z", "Asia/Shanghai")).toBe("2026-03-02 00:00:00");
  });

  it("passes plain dates through and marks missing values", () => {
    expect(formatDate("2026-02-28")).toBe("2026-02-28");
    expect(formatDate("2026-02-28T20:00:00Z", "Asia/Shanghai")).toBe("2026-03-01");
    expect(formatDateTime(null)).toBe("—");
    expect(formatDateTime("not a date")).toBe("not a date");
  });

  it("writes durations in the unit a person reads", () => {
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(12_400)).toBe("12.4 s");
    expect(formatDuration(185_000, "en")).toBe("3 min 05 s");
    expect(formatDuration(185_000, "zh-CN")).toBe("3 分 05 秒");
    expect(formatDuration(2 * 3_600_000 + 5 * 60_000, "en")).toBe("2 h 05 min");
    expect(formatDuration(-1)).toBe("—");
  });
});
