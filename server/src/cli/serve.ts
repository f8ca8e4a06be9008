import { memoryScopes } from "@engram/contract";
import type { ServerConfig } from "../config";
import { createLogger } from "../logger";
import cluster from "node:cluster";
import { runPrimary } from "../cluster/primary";
import { runWorker } from "../cluster/worker";
import { hostAndPort, isEveryInterface, normalHost, startServer } from "../server";
import { AppError } from "../domain/kernel/errors";
import { checkNewPassword } from "../domain/people/passwords";
import { normalizeEmail } from "../domain/people/users";
import type { Services } from "../services";
import { UsageError } from "./usage";

/** The first owner made when ENGRAM_ADMIN_* are unset (a generated password, printed once). */
const DEFAULT_ADMIN = { email: "admin@localhost", password: null };

/**
 * `engram serve`: one process, or with more than one worker a primary that runs the background work and
 * forks HTTP workers sharing the port (each worker runs this same command and becomes a worker here).
 */
export async function serve(config: ServerConfig, out: (line: string) => void): Promise<void> {
  const logger = createLogger(config.logLevel);
  if (cluster.isWorker) return runWorker(config, logger.child({ worker: cluster.worker!.id }));
  // Checked before the server listens, so a start refused for them never says it is listening.
  checkAdmin(config.application?.admin ?? DEFAULT_ADMIN);
  const workers = config.workers ?? 1;
  const server = await (workers > 1 ? runPrimary(config, workers, logger) : startServer(config, logger)).catch((error: unknown) => {
    throw listenFailure(error, config);
  });
  const listen = `${normalHost(config.host)}:${server.url.slice(server.url.lastIndexOf(":") + 1)}`;
  const everyInterface = isEveryInterface(config.host);
  const processes = workers > 1 ? ` (${workers} workers)` : "";
  logger.info(
    { listen, url: server.url, database: config.database.provider, workers },
    everyInterface ? `engram listening on ${listen} (every interface)${processes}, on this machine at ${server.url}` : `engram listening at ${server.url}${processes}`,
  );
  if (config.consoleDir) logger.info({ console: `${server.url}/` }, `console at ${server.url}/`);
  else if (!config.consoleOff) logger.warn("no console is served: build it with `pnpm --filter @engram/console build` (or set ENGRAM_CONSOLE_DIR)");
  await greetFirstRun(server.services, server.url, out, config.application?.admin, Boolean(config.consoleDir)).catch(async (error) => {
    // A half-started server would keep the process alive with no way to stop it gracefully.
    await server.close();
    throw error;
  });
  // Ctrl+C reaches every process of the terminal's group, and `pnpm start` forwards it once more: a repeated signal
  // must not cut the graceful shutdown short, and a graceful stop exits 0 so the script runner reports no failure.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    server.close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/** A refused listen or an unresolvable HOST, told in terms of the settings that fix it; any other failure as it is. */
function listenFailure(error: unknown, config: ServerConfig): unknown {
  const address = hostAndPort(config.host, config.port);
  switch ((error as NodeJS.ErrnoException | null)?.code) {
    case "EADDRINUSE":
      return new UsageError(`${address} is in use by another process: stop that process, or set PORT to a free port.`);
    case "EACCES":
      return new UsageError(`${address} needs privileges this process lacks (ports below 1024 usually do): set PORT to 1024 or above.`);
    case "EADDRNOTAVAIL":
    case "EINVAL":
      return new UsageError(`${address}: HOST is not an address of this machine; set it to one (127.0.0.1 for this machine alone, 0.0.0.0 for every interface).`);
    case "ENOTFOUND":
      return new UsageError(`HOST=${config.host} cannot be resolved to an address; set HOST to an address (127.0.0.1 for this machine alone, 0.0.0.0 for every interface) or a name this machine resolves.`);
    case "EAI_AGAIN":
      return new UsageError(`HOST=${config.host} could not be resolved (the name service did not answer): try again, or set HOST to an address.`);
    default:
      return error;
  }
}

/**
 * On an empty database, make a development organization with a token, and an owner who can sign in, so both
 * halves can be tried at once. A database with organizations but nobody to sign in (one from before people
 * existed) gets the owner alone.
 */
export async function greetFirstRun(
  services: Services,
  url: string,
  out: (line: string) => void,
  admin: { email: string; password: string | null } = DEFAULT_ADMIN,
  consoleServed = false,
): Promise<void> {
  const lines: string[] = [];
  const needsAdmin = (await services.users.count()) === 0;
  if (needsAdmin) checkAdmin(admin);
  let [org] = await services.organizations.list();
  if (!org) {
    org = await services.organizations.create({ name: "Development" });
    const { token } = await services.tokens.create({ orgId: org.id, name: "development", scopes: [...memoryScopes, "inference:chat"], environment: "production" });
    lines.push(
      `First run: created the organization "Development" (${org.id}) and a production token`,
      "with all memory scopes and inference:chat. It is shown only this once:",
      "",
      `  export ENGRAM_TOKEN=${token}`,
      "",
      `Try: curl -s ${url}/v1/memory -H "Authorization: Bearer $ENGRAM_TOKEN" -H 'Content-Type: application/json' -d '{"text":"Hello, Engram"}'`,
    );
  }
  if (needsAdmin) {
    const { user, password } = await services.users.create({ email: admin.email, displayName: "Administrator", password: admin.password ?? undefined });
    await services.memberships.add(org.id, user.id, "owner", "cli");
    if (lines.length) lines.push("");
    lines.push(
      `Created ${user.email}, owner of "${org.name}", to sign in to the ${consoleServed ? `console at ${url}/` : "application (/api)"}${admin.password ? " with ENGRAM_ADMIN_PASSWORD" : ". The password is shown only this once"}:`,
      "",
      `  export ENGRAM_ADMIN_EMAIL=${user.email}`,
      ...(admin.password ? [] : [`  export ENGRAM_ADMIN_PASSWORD=${password}`]),
      "",
      `Try: curl -s -c engram.cookies ${url}/api/auth/login -H 'Content-Type: application/json' -d "{\\"email\\":\\"$ENGRAM_ADMIN_EMAIL\\",\\"password\\":\\"$ENGRAM_ADMIN_PASSWORD\\"}"`,
    );
  }
  if (!lines.length) {
    out("Tokens are shown only when created: `engram token create --org ORG --name NAME` makes another (`engram org list` names ORG).");
    return;
  }
  out(["", ...lines, ""].join("\n"));
}

/** Bad ENGRAM_ADMIN_* settings are refused before anything is made (and at every start), so the corrected start is still a first run. */
function checkAdmin(admin: { email: string; password: string | null }): void {
  const check = (name: string, rule: () => unknown) => {
    try {
      rule();
    } catch (error) {
      throw error instanceof AppError ? new UsageError(`${name}: ${error.message}`) : error;
    }
  };
  check("ENGRAM_ADMIN_EMAIL", () => normalizeEmail(admin.email));
  if (admin.password !== null) check("ENGRAM_ADMIN_PASSWORD", () => checkNewPassword(admin.password!));
}
