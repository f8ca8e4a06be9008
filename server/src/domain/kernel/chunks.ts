/** `items` in consecutive slices of at most `size` (a statement's or a transaction's worth each), in order. */
export function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
