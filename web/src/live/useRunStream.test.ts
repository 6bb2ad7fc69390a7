import { describe, expect, it } from "vitest";
import { actionOfMessage } from "./useRunStream";

describe("SSE messages of the task stream", () => {
  it("turns a TaskEvent frame into a reducer event", () => {
    const data = JSON.stringify({ seq: 3, type: "subtask_started", payload: { subtask_id: "s1" }, created_at: "2026-01-05T00:00:00Z" });
    expect(actionOfMessage({ event: "subtask_started", data, id: "3" })).toEqual({
      kind: "event",
      event: { seq: 3, type: "subtask_started", payload: { subtask_id: "s1" }, created_at: "2026-01-05T00:00:00Z" },
    });
  });

  it("ends the run with the status of the closing end frame", () => {
    const end = actionOfMessage({ event: "end", data: '{"status":"COMPLETED","last_seq":40}', id: "40" });
    expect(end).toEqual({ kind: "end", status: "COMPLETED" });
  });

  it("ignores frames that are not JSON or not events", () => {
    expect(actionOfMessage({ event: "message", data: "not json", id: null })).toBeNull();
    expect(actionOfMessage({ event: "message", data: '{"hello":1}', id: null })).toBeNull();
  });
});
