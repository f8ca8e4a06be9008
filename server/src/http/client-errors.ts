import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { TErrorCode } from "@engram/contract";
import { errorCodes } from "@engram/contract";
import { errorBody } from "./errors";

/** Node's HTTP parser refuses some requests before Express sees them; these say why, in the documented shape. */
const refusals: Partial<Record<string, { code: TErrorCode; message: string }>> = {
  HPE_HEADER_OVERFLOW: { code: "headers_too_large", message: "The request headers are too large." },
  // Node's timeouts on a request's arrival (the server's headersTimeout and requestTimeout).
  ERR_HTTP_REQUEST_TIMEOUT: { code: "request_timeout", message: "The request did not arrive in time: send its headers and body without pausing." },
};
const unreadable = { code: "malformed_request", message: "The request could not be parsed as HTTP." } as const;

const reasons: Partial<Record<number, string>> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

/** The documented error, written straight to the socket (there is no request to answer through), and the connection closed. */
function endWithError(socket: Socket, code: TErrorCode, message: string): void {
  const { status } = errorCodes[code];
  const body = JSON.stringify(errorBody(code, message));
  socket.end(
    `HTTP/1.1 ${status} ${reasons[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The server's `clientError` listener: a request the parser cannot read (oversized headers, a NUL in a header,
 * conflicting Content-Lengths, a broken request line) or that did not arrive in time gets the documented JSON error
 * and the connection closes.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const { code, message } = refusals[error.code ?? ""] ?? unreadable;
  endWithError(socket, code, message);
}

/** The server's `connect` listener: Node hands CONNECT to it alone (with none, it drops the connection unanswered). */
export function refuseConnect(_request: IncomingMessage, socket: Duplex): void {
  endWithError(socket as Socket, "malformed_request", "CONNECT is not served: this server is no proxy.");
}

/** The documented error answered through Node's response, before any route, and the connection closed. */
function answerWithError(response: ServerResponse, code: TErrorCode, message: string): void {
  const body = JSON.stringify(errorBody(code, message));
  response.writeHead(errorCodes[code].status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body), connection: "close" });
  response.end(body);
}

/** The server's `checkExpectation` listener: an `Expect` other than `100-continue` (Node's own answer is an empty 417). */
export function refuseExpectation(request: IncomingMessage, response: ServerResponse): void {
  const expected = String(request.headers.expect).slice(0, 100);
  answerWithError(response, "expectation_failed", `Expect: ${expected} cannot be met; this server meets only Expect: 100-continue.`);
}

/**
 * `listener` behind the check Node makes itself when asked (`requireHostHeader`), whose refusal is an empty 400:
 * an HTTP/1.1 request without a Host header gets the documented error instead.
 */
export function requiringHost(listener: RequestListener): RequestListener {
  return (request, response) => {
    if (request.headers.host !== undefined || request.httpVersion !== "1.1") return listener(request, response);
    answerWithError(response, "malformed_request", "An HTTP/1.1 request needs a Host header.");
  };
}
