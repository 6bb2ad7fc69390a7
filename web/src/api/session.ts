/**
 * The signed-in session in the browser. The access token (15 minutes) lives only in memory; the refresh
 * token is an HttpOnly cookie the page cannot read, so a reload or an expired access token is healed by one
 * `POST /auth/refresh`. Concurrent 401s share one refresh; a failed refresh signs the page out.
 */
export interface AccessToken {
  value: string;
  expiresAt: number;
}

type Listener = (signedIn: boolean) => void;

const REFRESH_PATH = "/api/v1/auth/refresh";
const EARLY_REFRESH_MS = 30_000;

export class BrowserSession {
  private token: AccessToken | null = null;
  private refreshing: Promise<boolean> | null = null;
  private listeners = new Set<Listener>();

  constructor(
    private readonly baseFetch: (request: Request) => Promise<Response> = (request) => fetch(request),
    private readonly now: () => number = () => Date.now(),
    private readonly refreshUrl: string = REFRESH_PATH,
  ) {}

  accept(accessToken: string, expiresInSeconds: number): void {
    this.token = { value: accessToken, expiresAt: this.now() + expiresInSeconds * 1000 };
    this.notify(true);
  }

  clear(): void {
    const wasSignedIn = this.token !== null;
    this.token = null;
    if (wasSignedIn) this.notify(false);
  }

  get signedIn(): boolean {
    return this.token !== null;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(signedIn: boolean): void {
    for (const listener of this.listeners) listener(signedIn);
  }

  /** Exchange the refresh cookie for a new access token; one request however many callers ask at once. */
  refresh(): Promise<boolean> {
    if (!this.refreshing) {
      this.refreshing = this.doRefresh().finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }

  private async doRefresh(): Promise<boolean> {
    try {
      const request = new Request(this.refreshUrl, { method: "POST", credentials: "same-origin" });
      const response = await this.baseFetch(request);
      if (!response.ok) {
        this.clear();
        return false;
      }
      const body = (await response.json()) as { access_token: string; expires_in: number };
      this.accept(body.access_token, body.expires_in);
      return true;
    } catch {
      return false; // the server is unreachable: keep the token, the caller reports the network error
    }
  }

  /** The Authorization header value, refreshed first when the token is about to expire. */
  async authorization(): Promise<string | null> {
    if (this.token && this.token.expiresAt - this.now() < EARLY_REFRESH_MS) await this.refresh();
    return this.token ? `Bearer ${this.token.value}` : null;
  }

  /** fetch with the access token; on 401 refresh once and send the request again. */
  readonly fetch = async (request: Request): Promise<Response> => {
    const spare = request.clone();
    const response = await this.baseFetch(await this.authorize(request));
    if (response.status !== 401 || request.url.includes("/api/v1/auth/")) return response;
    if (!(await this.refresh())) return response;
    return this.baseFetch(await this.authorize(spare));
  };

  private async authorize(request: Request): Promise<Request> {
    const header = await this.authorization();
    if (header) request.headers.set("Authorization", header);
    return request;
  }
}
