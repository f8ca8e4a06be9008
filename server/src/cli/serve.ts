import { memoryScopes } from "@engram/contract";
import type { ServerConfig } from "../config";
import { createLogger } from "../logger";
import { startServer } from "../server";
import type { Services } from "../services";

export async function serve(config: ServerConfig, out: (line: string) => void): Promise<void> {
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  logger.info({ url: server.url, database: config.database.provider }, "engram listening");
  await greetFirstRun(server.services, server.url, out);
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
export async function greetFirstRun(services: Services, url: string, out: (line: string) => void): Promise<void> {
  if ((await services.organizations.count()) > 0) return;
  const org = await services.organizations.create({ name: "Development" });
  const { token } = await services.tokens.create({
    orgId: org.id,
    name: "development",
    scopes: [...memoryScopes, "inference:chat"],
    environment: "production",
  });
  out(
    [
      "",
      "First run: created the organization \"Development\" (" + org.id + ") and a production token",
      "with all memory scopes and inference:chat. It is shown only this once:",
      "",
      `  export ENGRAM_TOKEN=${token}`,
      "",
      `Try: curl -s ${url}/v1/memory -H "Authorization: Bearer $ENGRAM_TOKEN" -H 'Content-Type: application/json' -d '{"text":"Hello, Engram"}'`,
      "",
    ].join("\n"),
  );
}
