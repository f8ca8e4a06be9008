/** A variable from the environment, where there is one (not in browsers). */
export function fromEnvironment(name: string): string | undefined {
  return typeof process === "undefined" ? undefined : process.env[name] || undefined;
}
