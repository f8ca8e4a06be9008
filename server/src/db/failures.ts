import { setTimeout as sleep } from "node:timers/promises";
import { AppError } from "../domain/kernel/errors";
import { timedOn, type WaitMeter } from "../domain/kernel/wait-meter";

/**
 * Driver failures that mean the database is busy (worth retrying soon: a lock, a conflict, no free
 * connection) or unreachable (down, dropped, connection lost), told apart from every other error.
 * Callers get `503 service_unavailable` with Retry-After for both, never a 500.
 */
type DatabaseTrouble = "busy" | "unreachable";

const RETRY_AFTER_SECONDS: Record<DatabaseTrouble, number> = { busy: 1, unreachable: 5 };

/** Postgres SQLSTATE classes: 08 connection, 53 resources, 57P shutdown; 40001/40P01 conflicts, 55P03 lock wait, 57014 statement timeout. */
function postgresTrouble(sqlState: string): DatabaseTrouble | null {
  if (["40001", "40P01", "55P03", "57014"].includes(sqlState) || sqlState.startsWith("53")) return "busy";
  if (sqlState.startsWith("08") || sqlState.startsWith("57P") || sqlState === "3D000") return "unreachable";
  return null;
}

/**
 * Prisma's own codes: P1001 unreachable, P1002 connect timeout, P1003 no database, P1008 socket timeout,
 * P1017 connection closed; P2028 a transaction that could not start (or finish) in time.
 */
const PRISMA_CODES: Record<string, DatabaseTrouble> = { P1001: "unreachable", P1002: "unreachable", P1003: "unreachable", P1008: "unreachable", P1017: "unreachable", P2028: "busy" };

/**
 * The driver adapters' error kinds (Prisma wraps them as `meta.driverAdapterError.cause`). A lost or timed
 * out connection is not "busy": a transaction's COMMIT may have gone through, so it must not run again.
 */
const ADAPTER_KINDS: Record<string, DatabaseTrouble> = {
  DatabaseNotReachable: "unreachable",
  DatabaseDoesNotExist: "unreachable",
  ConnectionClosed: "unreachable",
  SocketTimeout: "unreachable",
  TooManyConnections: "busy",
  TransactionWriteConflict: "busy",
};

interface AdapterCause {
  kind?: unknown;
  originalCode?: unknown;
  code?: unknown;
}

interface DriverFailure {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  severity?: unknown;
  cause?: AdapterCause;
  meta?: { driverAdapterError?: { cause?: AdapterCause } };
}

function troubleOf(error: unknown): DatabaseTrouble | null {
  if (typeof error !== "object" || error === null || error instanceof AppError) return null;
  const { name, code, message, severity, meta } = error as DriverFailure;
  // Prisma wraps the adapter's error in its own, except on some paths where the adapter's reaches us bare.
  const cause = meta?.driverAdapterError?.cause ?? (name === "DriverAdapterError" ? (error as DriverFailure).cause : undefined);
  const driverCode = cause?.originalCode ?? cause?.code ?? code;
  // SQLite's codes, extended ones included (SQLITE_BUSY_SNAPSHOT), arrive as the driver code or Prisma's own.
  if (typeof driverCode === "string" && /^SQLITE_(BUSY|LOCKED)/.test(driverCode)) return "busy";
  if (typeof cause?.originalCode === "string" || typeof cause?.code === "string") {
    const trouble = postgresTrouble(String(cause.originalCode ?? cause.code));
    if (trouble) return trouble;
  }
  if (typeof cause?.kind === "string" && cause.kind in ADAPTER_KINDS) return ADAPTER_KINDS[cause.kind]!;
  if (typeof code === "string" && code in PRISMA_CODES) return PRISMA_CODES[code]!;
  // pg's errors from the server carry a SQLSTATE and a severity; its own (pool, socket) only a message.
  if (typeof code === "string" && typeof severity === "string") return postgresTrouble(code);
  if (typeof message !== "string") return null;
  if (message.includes("timeout exceeded when trying to connect")) return "busy";
  if (/Connection terminated|not queryable|ECONNREFUSED|ECONNRESET/.test(message)) return "unreachable";
  return null;
}

/** The error a caller gets for database trouble: 503 with Retry-After; the driver's error stays as `cause`. */
function unavailableError(trouble: DatabaseTrouble, cause: unknown): AppError {
  const seconds = RETRY_AFTER_SECONDS[trouble];
  const message = trouble === "busy" ? "The database is busy" : "The database is unavailable";
  const error = new AppError("service_unavailable", `${message}; retry after ${seconds} s.`, null, seconds);
  error.cause = cause;
  return error;
}

/** Rethrows database trouble as the 503 AppError and anything else as it is. */
export function asAppFailure(error: unknown): unknown {
  const trouble = troubleOf(error);
  return trouble ? unavailableError(trouble, error) : error;
}

/**
 * Runs `attempt` again while the database is busy, for up to `budgetMs`, waiting asynchronously in
 * between (each wait timed on `waits`, when given): a statement or transaction that met a lock or a
 * conflict did not apply and can simply run again. Past the budget (or when the database is unreachable)
 * the caller gets the 503.
 */
export async function retryWhileBusy<T>(attempt: () => Promise<T>, budgetMs: number, waits?: WaitMeter): Promise<T> {
  const started = Date.now();
  const timed = timedOn(waits);
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const trouble = troubleOf(error);
      if (trouble !== "busy" || Date.now() - started >= budgetMs) throw asAppFailure(error);
      // Short, growing, jittered pauses so that competing writers stop meeting each other.
      await timed(sleep(Math.min(100, 2 ** tries) * (0.5 + Math.random())));
    }
  }
}
