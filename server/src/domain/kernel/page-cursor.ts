import { AppError } from "./errors";

/** Where a page of rows ordered by time and id ends: the next page starts after it. */
export interface PagePosition {
  createdAt: Date;
  id: string;
}

/** A page position as an opaque cursor: base64url of its time and id. */
export function encodeCursor(position: PagePosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString("base64url");
}

const CURSOR_SHAPE = /^[A-Za-z0-9_-]+$/;

/** The position a cursor names; anything this server did not hand out is refused. */
export function decodeCursor(cursor: string): PagePosition {
  const refused = () => new AppError("invalid_parameter", "cursor: not a cursor from a previous page; start again without one.", "cursor");
  if (!CURSOR_SHAPE.test(cursor)) throw refused();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw refused();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || typeof decoded[0] !== "string" || typeof decoded[1] !== "string" || decoded[1].length > 100) throw refused();
  const createdAt = new Date(decoded[0]);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== decoded[0]) throw refused();
  return { createdAt, id: decoded[1] };
}

/** Cuts rows read one past `limit` to a page: the extra row tells whether another page follows. */
export function pageOf<T>(rows: T[], limit: number, positionOf: (row: T) => PagePosition): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? encodeCursor(positionOf(items.at(-1)!)) : null };
}
