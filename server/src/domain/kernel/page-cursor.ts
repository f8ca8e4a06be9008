import { AppError } from "./errors";

/** Where a page of rows ordered by time and id ends: the next page starts after it. */
export interface PagePosition {
  createdAt: Date;
  id: string;
}

/** A page of a list ordered by time and id: the rows after `after` (from the first without it), at most `limit`. */
export interface ListPage {
  after: PagePosition | null;
  limit: number;
}

/** A page position as an opaque cursor: base64url of its time and id. */
export function encodeCursor(position: PagePosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString("base64url");
}

const CURSOR_SHAPE = /^[A-Za-z0-9_-]+$/;
/** Ids as this server makes them; nothing else (a NUL, a lone surrogate) ever reaches a query. */
const ID_SHAPE = /^[A-Za-z0-9_-]{1,100}$/;
/** The form toISOString writes for years 1 to 9999: what both backends store (Postgres has no year 0). */
const TIME_SHAPE = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The position a cursor names, or null without one (the first page); anything this server did not hand out,
 * an empty cursor included, is refused, naming `param` (the query parameter that carried it).
 */
export function decodeCursor(cursor: string | undefined, param = "cursor"): PagePosition | null {
  if (cursor === undefined) return null;
  const refused = () => new AppError("invalid_parameter", `${param}: not a cursor from a previous page; start again without one.`, param);
  if (!CURSOR_SHAPE.test(cursor)) throw refused();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw refused();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || typeof decoded[0] !== "string" || typeof decoded[1] !== "string") throw refused();
  const [time, id] = decoded as [string, string];
  if (!TIME_SHAPE.test(time) || !ID_SHAPE.test(id)) throw refused();
  const createdAt = new Date(time);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== time) throw refused();
  return { createdAt, id };
}

/**
 * Cuts rows read one past `limit` to a page: the extra row tells whether another page follows, and `cursorOf`
 * names the page's last row for the next (`encodeCursor` of its position, or a key the list orders by).
 */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (last: T) => string): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? cursorOf(items.at(-1)!) : null };
}
