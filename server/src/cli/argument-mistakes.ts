/**
 * Node's argument parser explains its refusals for programs that take positional arguments starting with a dash
 * (`-- "--bogus"`), which no engram command does: told instead as the CLI tells every other mistake, the option
 * first and then what is wrong with it. A message of another shape is kept as it is.
 */
export function argumentMistake(error: Error & { code?: unknown }): string {
  const unknown = /^Unknown option '([^']+)'/.exec(error.message);
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown) return `unknown option ${unknown[1]} (\`engram --help\` lists the commands and their options)`;
  // `'--workers <value>'`, `'--workers'`, or a flag with a short form, `'-h, --help'`: the long name is the last.
  const option = /^Option '(?:-\w, )?(--?[\w-]+)/.exec(error.message)?.[1];
  if (error.code !== "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" || !option) return error.message;
  if (error.message.endsWith("argument missing")) return `${option} needs a value`;
  if (error.message.includes("is ambiguous")) return `${option} needs a value: one that starts with "-" is written ${option}=-…`;
  if (error.message.endsWith("does not take an argument")) return `${option} takes no value`;
  return error.message;
}
