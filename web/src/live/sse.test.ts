import { describe, expect, it } from "vitest";
import { SseParser } from "./sse";

describe("SSE parser", () => {
  it("reads id, event and JSON data of a frame as the API sends it", () => {
    const parser = new SseParser();
    const messages = parser.push('id: 7\nevent: action\ndata: {"seq":7}\n\n');
    expect(messages).toEqual([{ event: "action", data: '{"seq":7}', id: "7" }]);
    expect(parser.lastEventId).toBe("7");
  });

  it("joins frames split anywhere across chunks, including inside CRLF", () => {
    const parser = new SseParser();
    const text = 'id: 1\r\ndata: {"a":1}\r\n\r\nid: 2\r\ndata: {"a":2}\r\n\r\n';
    const seen = [];
    for (const char of text) seen.push(...parser.push(char));
    expect(seen.map((m) => m.data)).toEqual(['{"a":1}', '{"a":2}']);
    expect(seen.map((m) => m.id)).toEqual(["1", "2"]);
  });

  it("ignores keep-alive comments and frames without data", () => {
    const parser = new SseParser();
    expect(parser.push(": keep-alive\n\n")).toEqual([]);
    expect(parser.push("event: ping\n\n")).toEqual([]);
    expect(parser.push("data: x\n\n")).toEqual([{ event: "message", data: "x", id: null }]);
  });

  it("joins multi-line data with newlines and takes the server's retry delay", () => {
    const parser = new SseParser();
    expect(parser.push("retry: 500\ndata: one\ndata:two\n\n")[0]?.data).toBe("one\ntwo");
    expect(parser.retryMs).toBe(500);
  });

  it("keeps the last id for a frame that sets none (resume point after reconnect)", () => {
    const parser = new SseParser();
    parser.push("id: 41\ndata: a\n\n");
    expect(parser.push("data: b\n\n")[0]?.id).toBe("41");
  });
});
