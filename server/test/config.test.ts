import { describe, expect, it } from "vitest";
import { configFromEnv } from "../src/config";
import { SettingError } from "../src/domain/kernel/errors";

/** The server's settings as the documented environment variables give them (README, "Configuration"). */
describe("configFromEnv", () => {
  it("reads every variable set to nothing as unset", () => {
    const unset = ["PORT", "HOST", "ENGRAM_DATA_DIR", "LOG_LEVEL", "ENGRAM_WORKERS", "ENGRAM_AUTH_CACHE_MS", "ENGRAM_REFLECTION", "ENGRAM_CONSOLE_DIR", "DATABASE_URL"];
    const config = configFromEnv(Object.fromEntries(unset.map((name) => [name, ""])));
    expect(config).toEqual(configFromEnv({}));
    expect(config).toMatchObject({ port: 8787, host: "0.0.0.0", dataDir: "./data", logLevel: "info", authCacheMs: 2000, reflection: { startDue: true } });
    expect(config.workers).toBeGreaterThanOrEqual(1);
  });

  it("takes port 0 as any free port", () => {
    expect(configFromEnv({ PORT: "0" }).port).toBe(0);
  });

  it.each([" ", "http", "1e3", "-1", "80.5", "65536"])("refuses PORT=%j as a SettingError naming it", (port) => {
    expect(() => configFromEnv({ PORT: port })).toThrow(new SettingError(`PORT must be a port number, got "${port}"`));
  });

  it("refuses a log level pino does not have", () => {
    expect(() => configFromEnv({ LOG_LEVEL: "verbose" })).toThrow(SettingError);
  });
});
