import { describe, expect, it } from "vitest";
import { formatAmount, formatCount, formatDecimal, formatPercent, formatUsd } from "./amounts";

describe("amounts", () => {
  it("groups thousands and keeps two decimals", () => {
    expect(formatAmount("1234567.8")).toBe("¥1,234,567.80");
    expect(formatAmount("0.5", "USD")).toBe("$0.50");
    expect(formatAmount("-1500", "HKD")).toBe("-HK$1,500.00");
  });

  it("rounds on the decimal string without losing cents to floating point", () => {
    expect(formatDecimal("12345678901234.565")).toBe("12,345,678,901,234.57");
    expect(formatDecimal("1.005")).toBe("1.01"); // 1.005 as a float rounds down to 1.00
    expect(formatDecimal("999999.995")).toBe("1,000,000.00");
  });

  it("accepts input that already has separators and writes no negative zero", () => {
    expect(formatDecimal("1,000,000")).toBe("1,000,000.00");
    expect(formatDecimal("-0.001")).toBe("0.00");
  });

  it("shows unknown currencies by code and unparseable values as they are", () => {
    expect(formatAmount("10", "JPY")).toBe("10.00 JPY");
    expect(formatAmount("1.2万")).toBe("1.2万");
  });

  it("keeps small LLM costs visible", () => {
    expect(formatUsd("0.0031")).toBe("$0.0031");
    expect(formatUsd(12.3456)).toBe("$12.35");
    expect(formatUsd(0)).toBe("$0.00");
  });

  it("formats ratios and counts, with a dash when there is no data", () => {
    expect(formatPercent(0.875, "en")).toBe("87.5%");
    expect(formatPercent(null)).toBe("—");
    expect(formatPercent(Number.NaN)).toBe("—");
    expect(formatCount(1234567, "en")).toBe("1,234,567");
  });
});
