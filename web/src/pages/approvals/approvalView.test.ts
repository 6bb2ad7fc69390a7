import { describe, expect, it } from "vitest";
import {
  approvalProgress,
  approvalSlots,
  decisionBody,
  formatTimeLeft,
  inboxQuery,
  riskColor,
  shortSummary,
  actionValueText,
  timeLeftMs,
  type ApprovalLike,
} from "./approvalView";

const critical: ApprovalLike = {
  status: "PENDING",
  required_approvals: 2,
  approvals: 1,
  requested_by: "operator-1",
  expires_at: "2026-01-05T09:00:00Z",
};

describe("approval view", () => {
  it("shows dual-approval progress as 1/2", () => {
    expect(approvalProgress(critical)).toEqual({ done: 1, required: 2, percent: 50, label: "1/2" });
    expect(approvalProgress({ ...critical, required_approvals: 1, approvals: 0 }).label).toBe("0/1");
  });

  it("counts the time left and stops at zero", () => {
    const now = new Date("2026-01-05T08:45:00Z").getTime();
    expect(timeLeftMs(critical.expires_at, now)).toBe(15 * 60_000);
    expect(timeLeftMs(critical.expires_at, now + 3_600_000)).toBe(0);
    expect(timeLeftMs("not a time", now)).toBe(0);
  });

  it("colours risk levels from green to red", () => {
    expect(["low", "medium", "high", "critical", "CRITICAL", "other"].map(riskColor)).toEqual([
      "green",
      "gold",
      "orange",
      "red",
      "red",
      "default",
    ]);
  });

  it("binds a decision to the payload hash shown and asks a rejection for its reason", () => {
    const hash = "ab".repeat(32);
    expect(decisionBody(hash, "approve", "  核对无误 ")).toEqual({ verdict: "approve", comment: "核对无误", payload_hash: hash });
    expect(decisionBody(hash, "approve", "")).toEqual({ verdict: "approve", comment: "", payload_hash: hash });
    expect(decisionBody(hash, "reject", "   ")).toBe("reason_required");
    expect(decisionBody(hash, "reject", "x".repeat(2001))).toBe("comment_too_long");
    expect(decisionBody("", "approve", "")).toBe("no_payload_hash");
  });

  it("fills one slot per approver and leaves the rest open", () => {
    const person = (username: string) => ({ user_id: `${username}-id`, username, display_name: null });
    const one = { required_approvals: 2, decisions: [{ verdict: "approve", comment: "ok", approver: person("zhao") }] };
    expect(approvalSlots(one)).toEqual([
      { state: "approved", who: "zhao", comment: "ok" },
      { state: "open", who: null, comment: "" },
    ]);
    const rejected = { required_approvals: 2, decisions: [{ verdict: "reject", approver: { user_id: "u9", username: null, display_name: "王" } }] };
    expect(approvalSlots(rejected).map((slot) => slot.state)).toEqual(["rejected", "open"]);
    expect(approvalSlots({ required_approvals: 1, decisions: [] })).toEqual([{ state: "open", who: null, comment: "" }]);
  });

  it("says how long is left in the reader's language", () => {
    expect(formatTimeLeft(0, "en")).toBe("");
    expect(formatTimeLeft(30_000, "zh-CN")).toBe("不到 1 分钟");
    expect(formatTimeLeft(12 * 60_000 + 5_000, "en")).toBe("12 min");
    expect(formatTimeLeft(65 * 60_000, "zh-CN")).toBe("1 小时 05 分钟");
    expect(formatTimeLeft(65 * 60_000, "en")).toBe("1 h 05 min");
  });

  it("asks for my queue without a status and for history with one", () => {
    expect(inboxQuery("mine", null)).toEqual({ limit: 50 });
    expect(inboxQuery("APPROVED", "c1", 20)).toEqual({ status: "APPROVED", cursor: "c1", limit: 20 });
  });

  it("shortens a long summary to one line and shows values as the approver reads them", () => {
    expect(shortSummary("付款  给\n杭州")).toBe("付款 给 杭州");
    expect(shortSummary("x".repeat(100), 10)).toBe("xxxxxxxxx…");
    expect(actionValueText("12345.60")).toBe("12345.60");
    expect(actionValueText({ amount: "1" })).toBe('{\n  "amount": "1"\n}');
  });
});
