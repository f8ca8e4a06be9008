/** A mistake in how the command was called: reported in one line with exit status 2. */
export class UsageError extends Error {}

export function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`${name} is required`);
  return value;
}

export function list(value: string | undefined): string[] | null {
  return value ? value.split(",").map((item) => item.trim()).filter(Boolean) : null;
}
