import type { RequestHandler } from "express";
import { AppError } from "../domain/kernel/errors";
import { named } from "./field-names";

/** No route's body nests this deep (event metadata, the deepest, stops at 5 levels of its own). */
export const MAX_BODY_DEPTH = 32;

/**
 * No route's body holds this many fields and list items in all (the largest, a chat of 512 messages, about
 * 2,000): past it a body is refused before the contract's checks, whose work grows with every field.
 */
export const MAX_BODY_VALUES = 5_000;

/** What is wrong with a body, and where: the dotted path of its field, or "" for the body as a whole. */
export interface BodyProblem {
  path: string;
  problem: string;
}

/** More than MAX_BODY_VALUES fields and list items: a problem of the body as a whole. */
export const TOO_MANY_VALUES: BodyProblem = { path: "", problem: `fields and list items are more than ${MAX_BODY_VALUES} in all` };

/** Nesting past MAX_BODY_DEPTH, named by the top-level field holding it. */
export const tooDeep = (field: string): BodyProblem => ({ path: field, problem: `must not be nested deeper than ${MAX_BODY_DEPTH} levels` });

/**
 * The documented 400 for a body's problem, found in its bytes before parsing (json-bytes.ts) or after. Without a
 * field to name, a problem of a value ("must not …") is the body's own, and one naming a part ("fields and list
 * items …", "field names …") is of the body's.
 */
export function bodyProblemError({ path, problem }: BodyProblem): AppError {
  if (path) return new AppError("invalid_parameter", `${named(path)}: ${problem}.`, named(path));
  return new AppError("invalid_parameter", problem.startsWith("must ") ? `The request body ${problem}.` : `The request body's ${problem}.`, null);
}

// Postgres refuses NUL in text and JSON while SQLite stores it; a lone surrogate has no UTF-8 form at all.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why `text` cannot be stored as sent on every backend, or null when it can. */
function stringProblem(text: string): string | null {
  if (text.includes("\u0000")) return "must not contain a NUL character (\\u0000)";
  if (LONE_SURROGATE.test(text)) return "must not contain an unpaired UTF-16 surrogate (\\ud800-\\udfff)";
  return null;
}

interface Visit {
  value: unknown;
  key: string;
  depth: number;
  parent: Visit | null;
}

function pathOf(visit: Visit): string[] {
  const keys: string[] = [];
  for (let at: Visit | null = visit; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reverse();
}

/**
 * The first problem in a parsed JSON body: a string (object keys included) that cannot be stored as sent,
 * named by the dotted path of its field (`messages.0.content`; a bad key names the object holding it), or
 * nesting deeper than MAX_BODY_DEPTH, named by the top-level field (deep values would overflow the stack
 * of every recursive reader after this), or more than MAX_BODY_VALUES fields and list items. Iterative, and a
 * path is built only for the one problem reported, so the check is linear in the body's size.
 */
export function bodyProblem(body: unknown): BodyProblem | null {
  const stack: Visit[] = [{ value: body, key: "", depth: 0, parent: null }];
  let values = 0;
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value, depth } = visit;
    if (typeof value === "string") {
      const problem = stringProblem(value);
      if (problem) return { path: pathOf(visit).join("."), problem };
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth > MAX_BODY_DEPTH) return tooDeep(pathOf(visit)[0]!);
    const keys = Object.keys(value);
    values += keys.length;
    if (values > MAX_BODY_VALUES) return TOO_MANY_VALUES;
    for (const key of Array.isArray(value) ? [] : keys) {
      // Record schemas drop a nested `__proto__` key silently, so the rest of the body would be applied as if it
      // had not been sent: refused, named by its own path. (At the top, strict schemas answer unknown_parameter.)
      if (key === "__proto__" && visit.parent !== null) return { path: [...pathOf(visit), key].join("."), problem: "is not allowed as a field name" };
      const problem = stringProblem(key);
      if (problem) return { path: pathOf(visit).join("."), problem: `field names ${problem}` };
    }
    // Pushed last to first, so fields are checked in the order they were sent.
    for (let i = keys.length - 1; i >= 0; i--) {
      stack.push({ value: (value as Record<string, unknown>)[keys[i]!], key: keys[i]!, depth: depth + 1, parent: visit });
    }
  }
  return null;
}

/**
 * The key (as sent, at most 100 characters) of the first query parameter whose key or value is not validly
 * percent-encoded UTF-8, or null. The query parser keeps such a part as typed, where a path parameter is refused:
 * `?q=%ED%A0%80` (an encoded surrogate) would be searched for as the letters and digits of its escapes.
 */
function malformedQueryKey(url: string): string | null {
  const start = url.indexOf("?");
  if (start === -1) return null;
  for (const part of url.slice(start + 1).split("&")) {
    try {
      decodeURIComponent(part);
    } catch {
      return part.split("=")[0]!.slice(0, 100);
    }
  }
  return null;
}

/**
 * Refuses a NUL or a lone surrogate in any path parameter, query value or body string, a query key given more than
 * once or in bracket form, a `__proto__` field, and absurd nesting, for every
 * route in one place: both backends answer the same 400 instead of one storing it and the other failing.
 */
export const checkInput: RequestHandler = (req, _res, next) => {
  const malformed = malformedQueryKey(req.originalUrl);
  if (malformed !== null) return next(new AppError("invalid_parameter", `${malformed}: not validly percent-encoded UTF-8.`, malformed));
  for (const [name, value] of Object.entries(req.params)) {
    const problem = stringProblem(value);
    if (problem) return next(new AppError("invalid_parameter", `${name}: ${problem}.`, name));
  }
  // No route reads a list or an object from the query string: a key sent twice (`?q=a&q=b`) or in bracket form
  // (`limit[]=5`) is refused rather than coerced, or silently half-read.
  for (const [name, value] of Object.entries(req.query)) {
    if (typeof value !== "string") return next(new AppError("invalid_parameter", `${name}: give it once, as a plain value (not repeated, and without brackets).`, name));
  }
  const inQuery = bodyProblem(req.query);
  if (inQuery) return next(new AppError("invalid_parameter", `${named(inQuery.path)}: ${inQuery.problem}.`, named(inQuery.path) || null));
  const found = bodyProblem(req.body);
  next(found ? bodyProblemError(found) : undefined);
};
