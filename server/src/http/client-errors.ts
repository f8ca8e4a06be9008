import type { Socket } from "node:net";
import type { TErrorCode } from "@engram/contract";
import { errorCodes } from "@engram/contract";
import { errorBody } from "./errors";

/** Node's HTTP parser refuses some requests before Express sees them; these say why, in the documented shape. */
function codeFor(error: NodeJS.ErrnoException): TErrorCode {
  return error.code === "HPE_HEADER_OVERFLOW" ? "headers_too_large" : "malformed_request";
}

const reasons: Partial<Record<number, string>> = { 400: "Bad Request", 431: "Request Header Fields Too Large" };

/**
 * The server's `clientError` listener: a request the parser cannot read (oversized headers, a NUL in a header,
 * conflicting Content-Lengths, a broken request line) gets the documented JSON error and the connection closes.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const code = codeFor(error);
  const { status } = errorCodes[code];
  const message = code === "headers_too_large" ? "The request headers are too large." : "The request could not be parsed as HTTP.";
  const body = JSON.stringify(errorBody(code, message));
  socket.end(
    `HTTP/1.1 ${status} ${reasons[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
