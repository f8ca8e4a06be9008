import { z } from "zod";

/**
 * The query of a list read a page at a time: the previous page's `nextCursor`, and how many rows at most
 * (`perPage`, also the default). A cursor is opaque unless the list says what it is.
 */
export const pageQuery = <Cursor extends z.ZodTypeAny = z.ZodString>(perPage: number, cursor?: Cursor) =>
  z
    .object({
      cursor: (cursor ?? z.string().max(200)).optional() as z.ZodOptional<Cursor>,
      limit: z.coerce.number().int().min(1).max(perPage).default(perPage),
    })
    .strict();
