import { describe, expect, it } from "vitest";
import { effectColor, policyDraftProblem, policyOrder } from "./policyView";

const NIGHT = '@id("org.no_payments_at_night")\n@reason("No payments at night.")\nforbid (principal, action, resource);';

describe("policy view", () => {
  it("colours effects: permit green, forbid red, approval orange", () => {
    expect(["permit", "forbid", "require_approval", "other"].map(effectColor)).toEqual(["green", "red", "orange", "default"]);
  });

  it("checks a draft before it is sent", () => {
    expect(policyDraftProblem("夜间禁止付款", NIGHT)).toBeNull();
    expect(policyDraftProblem("  ", NIGHT)).toBe("name_required");
    expect(policyDraftProblem("n", " \n")).toBe("text_required");
    expect(policyDraftProblem("n", "forbid (principal, action, resource);")).toBe("id_missing");
    expect(policyDraftProblem("n", NIGHT + " ".repeat(100_000))).toBe("too_long");
  });

  it("lists policies in force first, newest first", () => {
    const items = [
      { id: "old", enabled: true, created_at: "2026-01-01T00:00:00Z" },
      { id: "off", enabled: false, created_at: "2026-03-01T00:00:00Z" },
      { id: "new", enabled: true, created_at: "2026-02-01T00:00:00Z" },
    ];
    expect(policyOrder(items).map((p) => p.id)).toEqual(["new", "old", "off"]);
  });
});
