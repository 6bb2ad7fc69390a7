import { describe, expect, it } from "vitest";
import { BrowserSession } from "./session";

const ORIGIN = "http://finrpa.test";

/** A fake server: refresh succeeds `refreshes` times; API routes want the newest token. */
function server(options: { refreshOk: boolean }) {
  let issued = 0;
  const seen: { url: string; auth: string | null; body: string }[] = [];
  const handler = async (request: Request): Promise<Response> => {
    const body = request.method === "POST" ? await request.text() : "";
    seen.push({ url: new URL(request.url).pathname, auth: request.headers.get("Authorization"), body });
    if (request.url.endsWith("/api/v1/auth/refresh")) {
      if (!options.refreshOk) return new Response("{}", { status: 401 });
      issued += 1;
      return Response.json({ access_token: `token-${issued}`, expires_in: 900 });
    }
    const ok = request.headers.get("Authorization") === `Bearer token-${issued}` && issued > 0;
    return ok ? Response.json({ ok: true }) : new Response("{}", { status: 401 });
  };
  return { handler, seen };
}

const sessionOn = (handler: (r: Request) => Promise<Response>, now = () => 0) =>
  new BrowserSession(handler, now, `${ORIGIN}/api/v1/auth/refresh`);

describe("browser session", () => {
  it("refreshes once on a 401 and sends the request again, body included", async () => {
    const fake = server({ refreshOk: true });
    const session = sessionOn(fake.handler);
    session.accept("stale-token", 900);
    const response = await session.fetch(
      new Request(`${ORIGIN}/api/v1/tasks`, { method: "POST", body: '{"template_id":"x"}' }),
    );
    expect(response.status).toBe(200);
    expect(fake.seen.map((s) => s.url)).toEqual(["/api/v1/tasks", "/api/v1/auth/refresh", "/api/v1/tasks"]);
    expect(fake.seen[2]).toMatchObject({ auth: "Bearer token-1", body: '{"template_id":"x"}' });
  });

  it("shares one refresh among requests that fail together", async () => {
    const fake = server({ refreshOk: true });
    const session = sessionOn(fake.handler);
    session.accept("stale-token", 900);
    const results = await Promise.all(
      [1, 2, 3].map(() => session.fetch(new Request(`${ORIGIN}/api/v1/tasks`))),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(fake.seen.filter((s) => s.url.endsWith("/refresh"))).toHaveLength(1);
  });

  it("signs the page out when the refresh is refused", async () => {
    const fake = server({ refreshOk: false });
    const session = sessionOn(fake.handler);
    const states: boolean[] = [];
    session.subscribe((signedIn) => states.push(signedIn));
    session.accept("stale-token", 900);
    const response = await session.fetch(new Request(`${ORIGIN}/api/v1/tasks`));
    expect(response.status).toBe(401);
    expect(session.signedIn).toBe(false);
    expect(states).toEqual([true, false]);
  });

  it("refreshes ahead of expiry instead of sending a token about to die", async () => {
    const fake = server({ refreshOk: true });
    let clock = 0;
    const session = sessionOn(fake.handler, () => clock);
    session.accept("old", 60);
    clock = 45_000;
    expect(await session.authorization()).toBe("Bearer token-1");
  });

  it("does not retry sign-in routes (a wrong password stays a 401)", async () => {
    const fake = server({ refreshOk: true });
    const session = sessionOn(fake.handler);
    const response = await session.fetch(new Request(`${ORIGIN}/api/v1/auth/login`, { method: "POST", body: "{}" }));
    expect(response.status).toBe(401);
    expect(fake.seen).toHaveLength(1);
  });
});
