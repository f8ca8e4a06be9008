import { CookieJar } from "tough-cookie";

export interface SessionResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface SessionRequest {
  method?: string;
  /** JSON-encoded unless a string. */
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * How an unsafe request proves it is not another site's: `origin` (the default) sends the server's own Origin,
   * as a browser page of the application would; `csrf` sends the session's X-CSRF-Token, as curl would; `none`
   * sends neither.
   */
  proof?: "origin" | "csrf" | "none";
}

/**
 * A person's browser, as far as the `/api` routes can tell: a real cookie jar (tough-cookie, honouring
 * HttpOnly, Path, Expires and Secure) over real HTTP.
 */
export class SessionClient {
  readonly jar = new CookieJar();
  csrfToken: string | null = null;

  constructor(readonly baseUrl: string) {}

  async request(path: string, init: SessionRequest = {}): Promise<SessionResponse> {
    const url = this.baseUrl + path;
    const method = init.method ?? (init.body === undefined ? "GET" : "POST");
    const headers: Record<string, string> = { ...init.headers };
    const cookie = await this.jar.getCookieString(url);
    if (cookie) headers.cookie = cookie;
    if (init.body !== undefined) headers["content-type"] ??= "application/json";
    const proof = init.proof ?? "origin";
    if (method !== "GET" && method !== "HEAD") {
      if (proof === "origin") headers.origin ??= new URL(this.baseUrl).origin;
      if (proof === "csrf" && this.csrfToken) headers["x-csrf-token"] ??= this.csrfToken;
    }
    const body = init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    const response = await fetch(url, { method, headers, body });
    for (const setCookie of response.headers.getSetCookie()) await this.jar.setCookie(setCookie, url);
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : null;
    if (parsed && typeof parsed.csrfToken === "string") this.csrfToken = parsed.csrfToken;
    return { status: response.status, headers: response.headers, body: parsed };
  }

  get = (path: string, init: Omit<SessionRequest, "method" | "body"> = {}) => this.request(path, { ...init, method: "GET" });
  post = (path: string, body: unknown = {}, init: Omit<SessionRequest, "method" | "body"> = {}) => this.request(path, { ...init, method: "POST", body });
  patch = (path: string, body: unknown, init: Omit<SessionRequest, "method" | "body"> = {}) => this.request(path, { ...init, method: "PATCH", body });
  put = (path: string, body: unknown, init: Omit<SessionRequest, "method" | "body"> = {}) => this.request(path, { ...init, method: "PUT", body });
  delete = (path: string, init: Omit<SessionRequest, "method" | "body"> = {}) => this.request(path, { ...init, method: "DELETE" });

  /** Signs in; throws unless the server answered 200. */
  async signIn(email: string, password: string): Promise<SessionResponse> {
    const response = await this.post("/api/auth/login", { email, password });
    if (response.status !== 200) throw new Error(`sign-in answered ${response.status}: ${JSON.stringify(response.body)}`);
    return response;
  }

  /** The session cookie's value as the jar holds it, or null. */
  async sessionCookie(): Promise<string | null> {
    const cookies = await this.jar.getCookies(this.baseUrl + "/api/auth/me");
    return cookies.find((c) => c.key === "engram_session")?.value ?? null;
  }
}
