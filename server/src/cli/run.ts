import { parseArgs, inspect } from "node:util";
import { configFromEnv, workersFrom } from "../config";
import { DatabaseOpenError, migrate } from "../db/migrations";
import { openStore } from "../db/store";
import { AppError, SettingError } from "../domain/kernel/errors";
import { createServices } from "../services";
import * as admin from "./admin";
import { argumentMistake } from "./argument-mistakes";
import * as assistants from "./assistants";
import { mcp } from "./mcp";
import * as people from "./people";
import * as reflection from "./reflection";
import { serve } from "./serve";
import { UsageError } from "./usage";

const USAGE = `engram — organization memory for AI assistants

Usage:
  engram serve [--workers N]                     start the HTTP server (migrates first); N worker processes
                                                 share the port (default: one per core, ENGRAM_WORKERS)
  engram migrate                                 apply pending database migrations
  engram mcp --url URL [--agent SLUG]            MCP on stdin/stdout for desktop clients, forwarded to the server
                                                 at URL with the token in ENGRAM_TOKEN
  engram org create --name NAME [--plan free|spark|seed|rise|boost] [--founder] [--no-environments]
  engram org list
  engram org write-mode ORG_ID direct|candidate  candidate review needs a paid plan, never a founder workspace
  engram token create --org ORG_ID --name NAME [--scopes s1,s2] [--environment test|staging|production]
                      [--agents slug1,slug2]     print a new token (shown once)
  engram token list --org ORG_ID
  engram token revoke TOKEN_ID
  engram candidate list --org ORG_ID [--environment ENV]
  engram candidate promote|reject MEMORY_ID [--reason TEXT] [--actor NAME]
  engram user create --email EMAIL [--name NAME] [--password PASSWORD]   prints a generated password when none is given
  engram user password --email EMAIL [--password PASSWORD]               ends the account's sessions
  engram member list --org ORG_ID
  engram member add|role --org ORG_ID --email EMAIL --role owner|admin|member
  engram member remove --org ORG_ID --email EMAIL  also deletes their personal assistants there
  engram assistant create --org ORG_ID --name NAME --type org_shared|employee_personal [--owner EMAIL]
  engram assistant list --org ORG_ID
  engram assistant rename ASSISTANT_ID --org ORG_ID --name NAME
  engram assistant delete ASSISTANT_ID --org ORG_ID
  engram assistant changes ASSISTANT_ID --org ORG_ID   who changed it, before and after, when
  engram events stats --org ORG_ID               events received per type, known and unknown
  engram workflows list --org ORG_ID [--environment ENV]
  engram reflection run --org ORG_ID [--environment ENV]      runs reflection here to the end, prints its audit
  engram reflection status --org ORG_ID [--environment ENV]   a run in progress, and the last audits

Configuration comes from environment variables: PORT, HOST, ENGRAM_DATA_DIR, DATABASE_URL, LOG_LEVEL and the rest of the
README's Configuration table.`;

const options = {
  name: { type: "string" },
  plan: { type: "string" },
  founder: { type: "boolean" },
  "no-environments": { type: "boolean" },
  org: { type: "string" },
  scopes: { type: "string" },
  environment: { type: "string" },
  agents: { type: "string" },
  reason: { type: "string" },
  actor: { type: "string" },
  email: { type: "string" },
  password: { type: "string" },
  role: { type: "string" },
  type: { type: "string" },
  owner: { type: "string" },
  workers: { type: "string" },
  url: { type: "string" },
  agent: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** What a CLI run reads and writes instead of the process globals, so it can also run inside a test. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  /** One line of output (no trailing newline). */
  out(line: string): void;
  /** One line of diagnostics. */
  err(line: string): void;
}

export const processIo: CliIo = {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/**
 * A refusal as one line with no terminal controls: the argument parser's own messages span several lines, and a
 * value quoted back (a path, an id) may hold any character, an escape sequence among them.
 */
const printableLine = (message: string) =>
  message
    .split(/\r?\n/)
    .map((line) => line.trim())
    .join(" ")
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (control) => `\\x${control.charCodeAt(0).toString(16).padStart(2, "0")}`);

/**
 * Runs one command and resolves to the exit status: 0, 2 for a mistake in the call or a refused request, 1 for
 * anything else. `serve` resolves once listening; the server then runs until SIGINT or SIGTERM.
 */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  try {
    await dispatch(argv, io);
    return 0;
  } catch (error) {
    // Not a mistake in the call (the database may be down a while), but nothing of the stack would help either.
    if (error instanceof DatabaseOpenError || (error instanceof AppError && error.code === "service_unavailable")) {
      io.err(`engram: ${printableLine(error.message)}`);
      return 1;
    }
    if (error instanceof TypeError && String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS")) {
      io.err(`engram: ${printableLine(argumentMistake(error))}`);
      return 2;
    }
    if (error instanceof UsageError || error instanceof SettingError || error instanceof AppError) {
      io.err(`engram: ${printableLine(error.message)}`);
      return 2;
    }
    io.err(inspect(error));
    return 1;
  }
}

async function dispatch(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
  const [command, sub, arg, arg2] = positionals;
  if (values.help || !command) return io.out(USAGE);
  // A client of a running server: it reads none of the server's configuration, and writes only MCP to stdout.
  if (command === "mcp") return mcp(values, io.env, io.err);
  const config = configFromEnv(io.env);

  if (command === "serve") return serve(values.workers === undefined ? config : { ...config, workers: workersFrom(values.workers, "--workers") }, io.out);
  if (command === "migrate") {
    const result = await migrate(config.database);
    return io.out(result.applied.length ? `applied: ${result.applied.join(", ")}` : "database is up to date");
  }

  const commands: Record<string, (cli: admin.AdminContext) => Promise<void>> = {
    "org create": (c) => admin.createOrg(c, values),
    "org list": (c) => admin.listOrgs(c),
    "org write-mode": (c) => admin.setWriteMode(c, arg, arg2),
    "token create": (c) => admin.createToken(c, values),
    "token list": (c) => admin.listTokens(c, values),
    "token revoke": (c) => admin.revokeToken(c, arg),
    "candidate list": (c) => admin.listCandidates(c, values),
    "candidate promote": (c) => admin.reviewCandidate(c, "promote", arg, values),
    "candidate reject": (c) => admin.reviewCandidate(c, "reject", arg, values),
    "user create": (c) => people.createUser(c, values),
    "user password": (c) => people.setUserPassword(c, values),
    "member list": (c) => people.listMembers(c, values),
    "member add": (c) => people.addMember(c, values),
    "member role": (c) => people.changeMemberRole(c, values),
    "member remove": (c) => people.removeMember(c, values),
    "assistant create": (c) => assistants.createAssistant(c, values),
    "assistant list": (c) => assistants.listAssistants(c, values),
    "assistant rename": (c) => assistants.renameAssistant(c, arg, values),
    "assistant delete": (c) => assistants.deleteAssistant(c, arg, values),
    "assistant changes": (c) => assistants.assistantChanges(c, arg, values),
    "events stats": (c) => admin.eventStats(c, values),
    "workflows list": (c) => admin.listWorkflows(c, values),
    "reflection run": (c) => reflection.runReflection(c, values),
    "reflection status": (c) => reflection.reflectionStatus(c, values),
  };
  const run = commands[`${command} ${sub ?? ""}`.trim()];
  if (!run) throw new UsageError(`unknown command "${positionals.join(" ")}"; see engram --help`);

  const store = await openStore(config.database);
  try {
    await run({ services: createServices(store), out: io.out });
  } finally {
    await store.close();
  }
}
