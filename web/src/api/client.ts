/**
 * The typed API client: openapi-fetch over the paths generated from web/openapi.json (src/api/schema.ts,
 * `npm run gen:api`), sending the session's access token. `call()` turns an error response or a network
 * failure into an ApiProblem, so pages handle one kind of error.
 */
import createClient from "openapi-fetch";
import { ApiProblem } from "./problem";
import type { components, paths } from "./schema";
import { BrowserSession } from "./session";

export type Schemas = components["schemas"];

export const session = new BrowserSession();

export const api = createClient<paths>({ baseUrl: "", fetch: session.fetch, credentials: "same-origin" });

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Await an openapi-fetch call and return its data, or throw an ApiProblem. */
export async function call<T>(request: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await request;
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw ApiProblem.network();
  }
  if (!result.response.ok) throw ApiProblem.from(result.response.status, result.error);
  return result.data as T;
}

/** Download a file from the API (e.g. the audit export) with the session's token, as the browser would save it. */
export async function download(url: string, init: RequestInit, fallbackName: string): Promise<void> {
  let response: Response;
  try {
    response = await session.fetch(new Request(url, { ...init, credentials: "same-origin" }));
  } catch {
    throw ApiProblem.network();
  }
  if (!response.ok) {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    throw ApiProblem.from(response.status, body);
  }
  const blob = await response.blob();
  const name = /filename="?([^";]+)"?/.exec(response.headers.get("Content-Disposition") ?? "")?.[1] ?? fallbackName;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}
