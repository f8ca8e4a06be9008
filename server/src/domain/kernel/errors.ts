import type { TErrorCode } from "@engram/contract";

/**
 * The one error type services throw. The HTTP layer maps `code` to a status and type through the
 * contract's error table; `param` names the request field at fault.
 */
export class AppError extends Error {
  constructor(
    readonly code: TErrorCode,
    message: string,
    readonly param: string | null = null,
    /** Whole seconds the caller should wait before retrying (429 and 503): the Retry-After header. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "AppError";
  }
}

/** Raised by repositories when a write collides with a unique constraint (for example a replayed key). */
export class DuplicateKeyError extends Error {
  constructor(readonly target: string) {
    super(`duplicate key on ${target}`);
    this.name = "DuplicateKeyError";
  }
}

/**
 * A setting the process was started with (an environment variable, or a command-line option) that cannot be read:
 * reported in one line naming the setting, with exit status 2, as other mistakes in how a command was called.
 */
export class SettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingError";
  }
}
