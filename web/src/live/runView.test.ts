import { describe, expect, it } from "vitest";
import { applyRunEvent, EMPTY_RUN_VIEW, foldRunEvents, isFinal, type RunEvent } from "./runView";

const plan = {
  subtasks: [
    { subtask_id: "s1", index: 0, goal: "登录网银", status: "PENDING", skill_call: { skill: "LoginSkill" } },
    { subtask_id: "s2", index: 1, goal: "查询账户明细", status: "PENDING", skill_call: { skill: "FormFillSkill" } },
  ],
};

const event = (seq: number, type: string, payload: Record<string, unknown> = {}): RunEvent => ({
  seq,
  type,
  payload,
  created_at: `2026-01-05T08:00:${String(seq).padStart(2, "0")}Z`,
});

describe("run view reducer", () => {
  it("builds the plan and follows subtasks to completion", () => {
    const view = foldRunEvents([
      event(1, "run_created", { plan }),
      event(2, "subtask_started", { subtask_id: "s1", attempt: 1 }),
      event(3, "subtask_succeeded", { subtask_id: "s1" }),
      event(4, "subtask_started", { subtask_id: "s2", attempt: 1 }),
    ]);
    expect(view.subtasks.map((s) => [s.goal, s.status])).toEqual([
      ["登录网银", "SUCCESS"],
      ["查询账户明细", "RUNNING"],
    ]);
    expect(view.status).toBe("RUNNING");
    expect(view.current).toBe("s2");
    expect(view.subtasks[0]?.skill).toBe("LoginSkill");
  });

  it("ignores events replayed after a reconnect and sorts out-of-order ones", () => {
    const start = foldRunEvents([event(1, "run_created", { plan }), event(2, "subtask_started", { subtask_id: "s1" })]);
    const again = applyRunEvent(start, event(2, "subtask_started", { subtask_id: "s1" }));
    expect(again).toBe(start);
    expect(again.subtasks[0]?.attempts).toBe(1);
    const unordered = foldRunEvents([event(2, "subtask_started", { subtask_id: "s1" }), event(1, "run_created", { plan })]);
    expect(unordered.subtasks[0]?.status).toBe("RUNNING");
  });

  it("collects browser actions with their before/after screenshots for the timeline", () => {
    const view = foldRunEvents([
      event(1, "run_created", { plan }),
      event(2, "action", {
        subtask_id: "s1",
        action_index: 0,
        kind: "fill",
        target: { role: "textbox", name: "用户名" },
        value: "op***",
        duration_ms: 120,
        outcome: "ok",
        screenshot_before: { key: "audit/o/t/0_before_x.png", sha256: "ab" },
        screenshot_after: "audit/o/t/0_after_y.png",
      }),
    ]);
    expect(view.actions).toHaveLength(1);
    expect(view.actions[0]).toMatchObject({
      kind: "fill",
      target: "textbox “用户名”",
      value: "op***",
      screenshot_before: { key: "audit/o/t/0_before_x.png", sha256: "ab" },
      screenshot_after: { key: "audit/o/t/0_after_y.png" },
    });
  });

  it("opens the NEEDS_HUMAN panel with its context and closes it on a person's resolution", () => {
    const waiting = foldRunEvents([
      event(1, "run_created", { plan }),
      event(2, "subtask_started", { subtask_id: "s2" }),
      event(3, "needs_human", { subtask_id: "s2", reason: "retries exhausted: 找不到“开始日期”", llm_output: "{}" }),
    ]);
    expect(waiting.status).toBe("NEEDS_HUMAN");
    expect(waiting.needsHuman).toMatchObject({ subtask_id: "s2", context: { llm_output: "{}" } });
    const skipped = applyRunEvent(waiting, event(4, "human_resolution", { subtask_id: "s2", action: "skip" }));
    expect(skipped.needsHuman).toBeNull();
    expect(skipped.status).toBe("RUNNING");
    expect(skipped.subtasks[1]?.status).toBe("SKIPPED");
    const aborted = applyRunEvent(waiting, event(4, "human_resolution", { subtask_id: "s2", action: "abort" }));
    expect(aborted.status).toBe("ABORTED");
  });

  it("waits for approval with the risk behind it, and resumes when every pending approval is decided", () => {
    const waiting = foldRunEvents([
      event(1, "run_created", { plan }),
      event(2, "risk_decision", { subtask_id: "s2", level: "critical", requires_approval: true, reasons: ["moves money"] }),
      event(3, "approval_requested", { approval_id: "a1", subtask_id: "s2", level: "critical", required: 2 }),
    ]);
    expect(waiting.status).toBe("WAITING_APPROVAL");
    expect(waiting.pendingApprovals).toEqual([{ approval_id: "a1", level: "critical", required: 2 }]);
    expect(waiting.risk).toEqual({ subtask_id: "s2", level: "critical", requires_approval: true, reasons: ["moves money"] });
    const decided = applyRunEvent(waiting, event(4, "approval_decided", { approval_id: "a1", decision: "approved" }));
    expect(decided.status).toBe("RUNNING");
    expect(decided.pendingApprovals).toEqual([]);
  });

  it("ends with the status the run finished in", () => {
    const failed = foldRunEvents([
      event(1, "run_created", { plan }),
      event(2, "run_finished", { status: "FAILED", error: "portal returned 系统繁忙 three times" }),
    ]);
    expect(failed).toMatchObject({ status: "FAILED", finished: true, lastError: "portal returned 系统繁忙 three times" });
    expect(isFinal(failed.status)).toBe(true);
    expect(isFinal(EMPTY_RUN_VIEW.status)).toBe(false);
  });

  it("leaves unknown event types harmless", () => {
    const view = foldRunEvents([event(1, "run_created", { plan }), event(2, "llm_call", { tokens: 10 })]);
    expect(view.lastSeq).toBe(2);
    expect(view.subtasks).toHaveLength(2);
  });
});
