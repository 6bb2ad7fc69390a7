import { describe, expect, it } from "vitest";
import { approvalProgress, decideBlock, riskColor, timeLeftMs, type ApprovalLike } from "./approvalView";

const critical: ApprovalLike = {
  status: "PENDING",
  required_approvals: 2,
  approvals: 1,
  requested_by: "operator-1",
  expires_at: "2026-01-05T09:00:00Z",
  decisions: [{ approver_user_id: "approver-1", verdict: "approve" }],
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

  it("lets each eligible approver decide once, never the requester", () => {
    expect(decideBlock(critical, "approver-2")).toBeNull();
    expect(decideBlock(critical, "approver-1")).toBe("already_decided");
    expect(decideBlock(critical, "operator-1")).toBe("own_request");
    expect(decideBlock({ ...critical, status: "APPROVED" }, "approver-2")).toBe("not_pending");
  });
});
