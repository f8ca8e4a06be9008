import { pino, type Logger } from "pino";

/** Structured JSON logs on stdout; secrets in headers never reach them. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "engram" },
    redact: { paths: ["req.headers.authorization", "headers.authorization"], censor: "[redacted]" },
  });
}
