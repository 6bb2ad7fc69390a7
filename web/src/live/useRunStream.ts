/**
 * Follow one run live: the task's SSE stream (`GET /tasks/{id}/stream`) read with the session's token,
 * folded into a RunView. The stream replays the log from the start, then follows new events, and closes
 * with an `end` event once the run has finished; dropped connections resume from the last event id.
 */
import { useEffect, useReducer, useState } from "react";
import { session } from "../api/client";
import { readSseStream, type SseMessage } from "./sse";
import { applyRunEvent, EMPTY_RUN_VIEW, endRun, type RunEvent, type RunView } from "./runView";

export type StreamState = "connecting" | "live" | "reconnecting" | "ended";

type Action = { kind: "reset"; view: RunView } | { kind: "event"; event: RunEvent } | { kind: "end"; status: string | null };

function reduce(view: RunView, action: Action): RunView {
  if (action.kind === "reset") return action.view;
  if (action.kind === "end") return endRun(view, action.status);
  return applyRunEvent(view, action.event);
}

/** Parse one SSE message into a reducer action (null for anything the page does not use). */
export function actionOfMessage(message: SseMessage): Action | null {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    return null;
  }
  if (message.event === "end") {
    const status = (data as { status?: unknown }).status;
    return { kind: "end", status: typeof status === "string" ? status : null };
  }
  const event = data as Partial<RunEvent>;
  if (typeof event.seq !== "number" || typeof event.type !== "string") return null;
  return { kind: "event", event: { seq: event.seq, type: event.type, payload: event.payload ?? {}, created_at: event.created_at ?? null } };
}

export function useRunStream(taskId: string, start: RunView | null): { view: RunView; state: StreamState } {
  const [view, dispatch] = useReducer(reduce, EMPTY_RUN_VIEW);
  const [state, setState] = useState<StreamState>("connecting");
  const ready = start !== null;

  useEffect(() => {
    if (!start) return;
    dispatch({ kind: "reset", view: { ...start, lastSeq: 0 } });
    const controller = new AbortController();
    let ended = false;
    setState("connecting");
    void readSseStream(`/api/v1/tasks/${encodeURIComponent(taskId)}/stream`, {
      signal: controller.signal,
      headers: async (): Promise<Record<string, string>> => {
        const authorization = await session.authorization();
        return authorization ? { Authorization: authorization } : {};
      },
      onOpen: () => setState("live"),
      onError: () => setState("reconnecting"),
      isDone: () => ended,
      onMessage: (message) => {
        const action = actionOfMessage(message);
        if (!action) return;
        if (action.kind === "end") {
          ended = true;
          setState("ended");
        }
        dispatch(action);
      },
    });
    return () => controller.abort();
    // Restart only when the task or the readiness of the start view changes, not on every detail reload.
  }, [taskId, ready]);

  return { view, state };
}
