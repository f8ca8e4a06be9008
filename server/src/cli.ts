#!/usr/bin/env node
import { parseArgs } from "node:util";
import { ZEnvironment, memoryScopes } from "@engram/contract";
import { configFromEnv } from "./config";
import { migrate } from "./db/migrations";
import { openStore } from "./db/store";
import { AppError } from "./domain/errors";
import { plans } from "./domain/organizations";
import type { Plan } from "./domain/records";
import { createLogger } from "./logger";
import { startServer } from "./server";
import { createServices, type Services } from "./services";

const USAGE = `engram — organization memory for AI assistants

Usage:
  engram serve                                   start the HTTP server (migrates first)
  engram migrate                                 apply pending database migrations
  engram org create --name NAME [--plan free|spark|seed|rise|boost] [--founder] [--no-environments]
  engram org list
  engram token create --org ORG_ID --name NAME [--scopes s1,s2] [--environment test|staging|production]
                      [--agents slug1,slug2]     print a new token (shown once)
  engram token list --org ORG_ID
  engram token revoke TOKEN_ID

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
  help: { type: "boolean", short: "h" },
} as const;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
  const [command, sub, arg] = positionals;
  if (values.help || !command) return void console.log(USAGE);
  const config = configFromEnv();

  if (command === "serve") return serve();
  if (command === "migrate") {
    const result = await migrate(config.database);
    console.log(result.applied.length ? `applied: ${result.applied.join(", ")}` : "database is up to date");
    return;
  }

  const store = await openStore(config.database);
  try {
    const services = createServices(store);
    const key = `${command} ${sub ?? ""}`.trim();
    if (key === "org create") return await createOrg(services, values);
    if (key === "org list") return await listOrgs(services);
    if (key === "token create") return await createToken(services, values);
    if (key === "token list") return await listTokens(services, required(values.org, "--org"));
    if (key === "token revoke") {
      const revoked = await services.tokens.revoke(required(arg, "TOKEN_ID"));
      if (!revoked) throw new UsageError(`no token ${arg}`);
      return void console.log(`revoked ${arg}`);
    }
    throw new UsageError(`unknown command "${key}"`);
  } finally {
    await store.close();
  }
}

async function serve(): Promise<void> {
  const config = configFromEnv();
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  logger.info({ url: server.url, database: config.database.provider }, "engram listening");
  await greetFirstRun(server.services, server.url);
  const stop = (signal: string) => {
    logger.info({ signal }, "shutting down");
    server.close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** On an empty database, make a development organization and a token so the API can be tried at once. */
async function greetFirstRun(services: Services, url: string): Promise<void> {
  if ((await services.organizations.count()) > 0) return;
  const org = await services.organizations.create({ name: "Development" });
  const { token } = await services.tokens.create({
    orgId: org.id,
    name: "development",
    scopes: [...memoryScopes, "inference:chat"],
    environment: "production",
  });
  console.log(
    [
      "",
      "First run: created the organization \"Development\" (" + org.id + ") and a production token",
      "with all memory scopes. It is shown only this once:",
      "",
      `  export ENGRAM_TOKEN=${token}`,
      "",
      `Try: curl -s ${url}/v1/memory -H "Authorization: Bearer $ENGRAM_TOKEN" -H 'Content-Type: application/json' -d '{"text":"Hello, Engram"}'`,
      "",
    ].join("\n"),
  );
}

async function createOrg(services: Services, values: Record<string, unknown>): Promise<void> {
  const plan = (values.plan as string | undefined) ?? "free";
  if (!plans.includes(plan as Plan)) throw new UsageError(`--plan must be one of ${plans.join(", ")}`);
  const org = await services.organizations.create({
    name: required(values.name as string | undefined, "--name"),
    plan: plan as Plan,
    founderWorkspace: Boolean(values.founder),
    environmentsEnabled: !values["no-environments"],
  });
  console.log(`created organization ${org.id} (${org.name}, plan ${org.plan})`);
}

async function listOrgs(services: Services): Promise<void> {
  for (const org of await services.organizations.list()) {
    console.log(`${org.id}\t${org.name}\tplan=${org.plan}\twriteMode=${org.writeMode}${org.founderWorkspace ? "\tfounder" : ""}`);
  }
}

async function createToken(services: Services, values: Record<string, unknown>): Promise<void> {
  const environment = ZEnvironment.safeParse((values.environment as string | undefined) ?? "production");
  if (!environment.success) throw new UsageError("--environment must be test, staging or production");
  const { token, record } = await services.tokens.create({
    orgId: required(values.org as string | undefined, "--org"),
    name: required(values.name as string | undefined, "--name"),
    scopes: list(values.scopes as string | undefined) ?? [...memoryScopes],
    environment: environment.data,
    agentSlugs: list(values.agents as string | undefined),
  });
  console.log(`created token ${record.id} (${record.environment}; ${record.scopes.join(" ")}${record.agentSlugs ? `; agents ${record.agentSlugs.join(",")}` : ""})`);
  console.log("It is shown only this once:");
  console.log(token);
}

async function listTokens(services: Services, orgId: string): Promise<void> {
  for (const token of await services.tokens.list(orgId)) {
    const state = token.revokedAt ? `revoked ${token.revokedAt.toISOString()}` : "active";
    const agents = token.agentSlugs ? `\tagents=${token.agentSlugs.join(",")}` : "";
    console.log(`${token.id}\t${token.prefix}…\t${token.name}\t${token.environment ?? "unbound"}\t${token.scopes.join(" ")}\t${state}${agents}`);
  }
}

class UsageError extends Error {}

function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`${name} is required`);
  return value;
}

function list(value: string | undefined): string[] | null {
  return value ? value.split(",").map((item) => item.trim()).filter(Boolean) : null;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || error instanceof AppError) {
    console.error(`engram: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  console.error(error);
  process.exitCode = 1;
});
