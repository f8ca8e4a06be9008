import { request } from "node:http";
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: any;
}

export interface RawRequest {
  method?: string;
  /** Sent exactly as given: no normalisation of case, dots or percent-escapes. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/**
 * One HTTP request with the exact bytes and path given; fetch would normalise paths, refuse some headers
 * and re-encode bodies, which is what a hostile client does not do.
 */
export function sendRaw(baseUrl: string, { method = "POST", path, headers = {}, body }: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const payload = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const allHeaders: Record<string, string> = { ...headers };
  const named = (header: string) => Object.keys(allHeaders).some((name) => name.toLowerCase() === header);
  // A chunked body declares no length; Node's client then writes the chunks.
  if (payload && !named("content-length") && !named("transfer-encoding")) {
    allHeaders["content-length"] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: allHeaders }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** `text` as a JSON string with every character a \uXXXX escape: six bytes of JSON for one character, the most a string takes. */
export const escapedJsonString = (text: string) => `"${[...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"`;

/** Writes `text` on a connection of its own and resolves with everything the server answered once it closed it. */
export function writeUntilClosed(baseUrl: string, text: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", reject);
  });
}
