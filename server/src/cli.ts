#!/usr/bin/env node
import { parseArgs } from "node:util";
import * as admin from "./cli/admin";
import { serve } from "./cli/serve";
import { UsageError } from "./cli/usage";
import { configFromEnv } from "./config";
import { migrate } from "./db/migrations";
import { openStore } from "./db/store";
import { AppError } from "./domain/errors";
import { createServices } from "./services";

const USAGE = `engram — organization memory for AI assistants

Usage:
  engram serve                                   start the HTTP server (migrates first)
  engram migrate                                 apply pending database migrations
  engram org create --name NAME [--plan free|spark|seed|rise|boost] [--founder] [--no-environments]
  engram org list
  engram org write-mode ORG_ID direct|candidate  candidate review needs a paid plan, never a founder workspace
  engram token create --org ORG_ID --name NAME [--scopes s1,s2] [--environment test|staging|production]
                      [--agents slug1,slug2]     print a new token (shown once)
  engram token list --org ORG_ID
  engram token revoke TOKEN_ID
  engram candidate list --org ORG_ID [--environment ENV]
  engram candidate promote|reject MEMORY_ID [--reason TEXT] [--actor NAME]
  engram events stats --org ORG_ID               events received per type, known and unknown
  engram workflows list --org ORG_ID [--environment ENV]

Configuration comes from PORT, ENGRAM_DATA_DIR, DATABASE_URL and LOG_LEVEL (see the README).`;

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
  help: { type: "boolean", short: "h" },
} as const;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
  const [command, sub, arg, arg2] = positionals;
  if (values.help || !command) return void console.log(USAGE);
  const config = configFromEnv();

  if (command === "serve") return serve();
  if (command === "migrate") {
    const result = await migrate(config.database);
    return void console.log(result.applied.length ? `applied: ${result.applied.join(", ")}` : "database is up to date");
  }

  const commands: Record<string, (services: ReturnType<typeof createServices>) => Promise<void>> = {
    "org create": (s) => admin.createOrg(s, values),
    "org list": (s) => admin.listOrgs(s),
    "org write-mode": (s) => admin.setWriteMode(s, arg, arg2),
    "token create": (s) => admin.createToken(s, values),
    "token list": (s) => admin.listTokens(s, values),
    "token revoke": (s) => admin.revokeToken(s, arg),
    "candidate list": (s) => admin.listCandidates(s, values),
    "candidate promote": (s) => admin.reviewCandidate(s, "promote", arg, values),
    "candidate reject": (s) => admin.reviewCandidate(s, "reject", arg, values),
    "events stats": (s) => admin.eventStats(s, values),
    "workflows list": (s) => admin.listWorkflows(s, values),
  };
  const run = commands[`${command} ${sub ?? ""}`.trim()];
  if (!run) throw new UsageError(`unknown command "${positionals.join(" ")}"; see engram --help`);

  const store = await openStore(config.database);
  try {
    await run(createServices(store));
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const parseError = error instanceof TypeError && String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS");
  if (error instanceof UsageError || error instanceof AppError || parseError) {
    console.error(`engram: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  console.error(error);
  process.exitCode = 1;
});
