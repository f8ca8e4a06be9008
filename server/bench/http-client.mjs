// Plain JavaScript so the load workers need no TypeScript loader. See http-load.ts.
// The load generators' HTTP client: undici's request API on a keep-alive pool of one origin. It costs a
// fraction of fetch's CPU per request, and the load generator shares the two cores with what it measures.
import { Pool } from "undici";

/** POSTs to `url` over at most `connections` sockets. */
export function httpPoster(url, { connections, headers }) {
  const { origin, pathname, search } = new URL(url);
  const pool = new Pool(origin, { connections });
  return {
    /** Resolves once the whole answer is read: its status, when its body's first byte came, and its text. */
    async post(body, extraHeaders) {
      const response = await pool.request({ path: pathname + search, method: "POST", headers: extraHeaders ? { ...headers, ...extraHeaders } : headers, body });
      const chunks = [];
      let firstByteAt = null;
      for await (const chunk of response.body) {
        firstByteAt ??= performance.now();
        chunks.push(chunk);
      }
      return { status: response.statusCode, firstByteAt: firstByteAt ?? performance.now(), text: () => Buffer.concat(chunks).toString() };
    },
    close: () => pool.close(),
  };
}
