/**
 * A Server-Sent Events reader over fetch. EventSource cannot send an Authorization header, so the stream is
 * read with fetch and parsed here (the text/event-stream format of the HTML standard): `event:`, `data:`
 * (several lines joined by "\n"), `id:`, `retry:`, comments, and CR / LF / CRLF line ends split anywhere
 * across chunks. After a disconnect the reader resumes with `Last-Event-ID`.
 */

export interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private pendingId: string | null = null;
  /** The last event id the stream set (kept across messages, as the standard says). */
  lastEventId: string | null = null;
  /** A reconnection delay the server asked for, in milliseconds. */
  retryMs: number | null = null;

  /** Feed a chunk of text; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const messages: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone CR at the very end may be the first half of CRLF: wait for the next chunk.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) messages.push(message);
    }
    return messages;
  }

  private line(line: string): SseMessage | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.pendingId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    return null;
  }

  private dispatch(): SseMessage | null {
    if (this.pendingId !== null) this.lastEventId = this.pendingId;
    this.pendingId = null;
    if (this.data.length === 0) {
      this.event = "";
      return null;
    }
    const message = { event: this.event || "message", data: this.data.join("\n"), id: this.lastEventId };
    this.data = [];
    this.event = "";
    return message;
  }
}

export interface SseStreamOptions {
  headers: () => Promise<Record<string, string>> | Record<string, string>;
  onMessage: (message: SseMessage) => void;
  onOpen?: () => void;
  onError?: (error: unknown) => void;
  signal: AbortSignal;
  /** Stop reconnecting when this says the stream is complete (e.g. the run finished). */
  isDone?: () => boolean;
  reconnectMs?: number;
}

/** Read an SSE endpoint until aborted or done, reconnecting with Last-Event-ID after a drop. */
export async function readSseStream(url: string, options: SseStreamOptions): Promise<void> {
  const parser = new SseParser();
  while (!options.signal.aborted && !options.isDone?.()) {
    try {
      await readOnce(url, parser, options);
    } catch (error) {
      if (options.signal.aborted) return;
      options.onError?.(error);
    }
    if (options.signal.aborted || options.isDone?.()) return;
    await sleep(parser.retryMs ?? options.reconnectMs ?? 2000, options.signal);
  }
}

async function readOnce(url: string, parser: SseParser, options: SseStreamOptions): Promise<void> {
  const headers: Record<string, string> = { Accept: "text/event-stream", ...(await options.headers()) };
  if (parser.lastEventId) headers["Last-Event-ID"] = parser.lastEventId;
  const response = await fetch(url, { headers, signal: options.signal, cache: "no-store" });
  if (!response.ok || !response.body) throw new Error(`stream answered HTTP ${response.status}`);
  options.onOpen?.();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const message of parser.push(value)) options.onMessage(message);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
