/**
 * Errors from the API as one class: the RFC 9457 problem document the server sends (detail, code, retryable,
 * request_id, per-field errors), or a network failure when the server could not be reached.
 */
export interface FieldProblemBody {
  location: string;
  message: string;
}

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly retryable: boolean = false,
    readonly requestId: string | null = null,
    readonly errors: FieldProblemBody[] = [],
  ) {
    super(detail);
    this.name = "ApiProblem";
  }

  static network(): ApiProblem {
    return new ApiProblem(0, "network", "", true);
  }

  /** Build from whatever came back: a problem document, a plain string, or nothing. */
  static from(status: number, body: unknown): ApiProblem {
    if (body && typeof body === "object") {
      const p = body as Record<string, unknown>;
      const detail = typeof p.detail === "string" ? p.detail : typeof p.title === "string" ? p.title : "";
      return new ApiProblem(
        status,
        typeof p.code === "string" ? p.code : `http_${status}`,
        detail,
        p.retryable === true,
        typeof p.request_id === "string" ? p.request_id : null,
        Array.isArray(p.errors) ? (p.errors as FieldProblemBody[]) : [],
      );
    }
    // A proxy's HTML error page says nothing useful to a person; plain text is kept.
    const text = typeof body === "string" && !body.trimStart().startsWith("<") ? body.slice(0, 300) : "";
    return new ApiProblem(status, `http_${status}`, text);
  }
}
