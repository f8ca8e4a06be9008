import { describe, expect, it } from "vitest";
import { configFromEnv, workersFrom } from "../src/config";
import { redactedUrl } from "../src/db/config";
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

  it.each([
    ["[::]", "::"],
    ["[::1]", "::1"],
    ["::1", "::1"],
    ["127.0.0.1", "127.0.0.1"],
    ["[example]", "[example]"],
  ])("reads HOST=%s, an IPv6 address in brackets as URLs write it, as %s", (host, address) => {
    expect(configFromEnv({ HOST: host }).host).toBe(address);
  });

  it("takes port 0 as any free port", () => {
    expect(configFromEnv({ PORT: "0" }).port).toBe(0);
  });

  it.each([" ", "http", "1e3", "0x50", "-1", "80.5", "65536", "٨٠"])("refuses PORT=%j as a SettingError naming it", (port) => {
    expect(() => configFromEnv({ PORT: port })).toThrow(new SettingError(`PORT must be a whole number from 0 to 65535, got "${port}"`));
  });

  it.each([
    ["ENGRAM_AUTH_CACHE_MS", " "],
    ["ENGRAM_AUTH_CACHE_MS", "0x10"],
    ["ENGRAM_DB_BUSY_TIMEOUT_MS", "1e3"],
    // Past 2^31 - 1 ms Node's timers fire at once, again and again.
    ["ENGRAM_DB_BUSY_TIMEOUT_MS", "3000000000"],
    ["ENGRAM_REFLECTION_TICK_MS", "3000000000"],
    ["ENGRAM_SESSION_MAX_HOURS", "1e20"],
    ["ENGRAM_SESSION_IDLE_MINUTES", "0.5"],
    ["ENGRAM_UPSTREAM_TIMEOUT_MS", "-5"],
  ])("refuses %s=%j: numbers are whole, in decimal digits, within their range", (name, value) => {
    const env = { [name]: value, ENGRAM_UPSTREAM_BASE_URL: "http://127.0.0.1:9/v1", ENGRAM_UPSTREAM_MODEL: "m" };
    expect(() => configFromEnv(env)).toThrow(new RegExp(`^${name} must be a whole number (of \\w+ )?from \\d+ to \\d+, got "${value.replace(/[.+]/g, "\\$&")}"$`));
  });

  it("reads the embeddings' settings only as http(s) URLs and numbers in range", () => {
    const embeddings = { ENGRAM_EMBEDDINGS_URL: "http://127.0.0.1:9/v1" };
    expect(configFromEnv({ ...embeddings, ENGRAM_EMBEDDINGS_MIN_SIMILARITY: "-0.25", ENGRAM_EMBEDDINGS_DIMENSIONS: "512" }).embeddings).toMatchObject({ minSimilarity: -0.25, dimensions: 512 });
    // A model named by blanks is no model: the default, as ENGRAM_MODEL_ID does.
    expect(configFromEnv({ ...embeddings, ENGRAM_EMBEDDINGS_MODEL: " " }).embeddings?.model).toBe("text-embedding-3-small");
    for (const url of ["localhost:11434/v1", "ftp://models.example/v1", "javascript:alert(1)"]) {
      expect(() => configFromEnv({ ENGRAM_EMBEDDINGS_URL: url })).toThrow(`ENGRAM_EMBEDDINGS_URL must be an http(s) URL, got "${url}"`);
    }
    for (const similarity of ["0x1", " ", "2", "1e-1"]) {
      expect(() => configFromEnv({ ...embeddings, ENGRAM_EMBEDDINGS_MIN_SIMILARITY: similarity })).toThrow(SettingError);
    }
  });

  it.each([
    ["ENGRAM_EMBEDDINGS_TIMEOUT_MS", "10s"],
    ["ENGRAM_EMBEDDINGS_DIMENSIONS", "0"],
    ["ENGRAM_EMBEDDINGS_MIN_SIMILARITY", "0.3.1"],
    ["ENGRAM_UPSTREAM_TIMEOUT_MS", "1e3"],
  ])("refuses %s=%j even while its feature is off, not only once it is turned on", (name, value) => {
    expect(() => configFromEnv({ [name]: value })).toThrow(new RegExp(`^${name} must be `));
  });

  it("takes a postgres URL of any case for Postgres, and refuses any other DATABASE_URL rather than fall back to SQLite", () => {
    expect(configFromEnv({ DATABASE_URL: "POSTGRESQL://db.example/engram" }).database.provider).toBe("postgres");
    for (const url of ["mysql://root:s3cret@db.example/engram", "file:./engram.db", "postgres:/db.example/engram", " postgres://db.example/engram"]) {
      const refused = (() => {
        try {
          configFromEnv({ DATABASE_URL: url });
        } catch (error) {
          return error as Error;
        }
      })();
      expect(refused).toBeInstanceOf(SettingError);
      expect(refused!.message).toMatch(/^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
      expect(refused!.message).not.toContain("s3cret");
    }
  });

  it("refuses an empty --workers, which is no number", () => {
    expect(() => workersFrom("", "--workers")).toThrow('--workers must be a whole number from 1 to 64, got ""');
  });

  it("refuses a log level pino does not have", () => {
    expect(() => configFromEnv({ LOG_LEVEL: "verbose" })).toThrow(SettingError);
  });
});

describe("redactedUrl", () => {
  it.each([
    ["postgres://engram:s3cret@db.example:5432/engram", "postgres://engram@db.example:5432/engram"],
    ["postgres://db.example/engram?password=s3cret&sslmode=require", "postgres://db.example/engram?password=redacted&sslmode=require"],
    ["postgres://db.example/engram?sslpassword=s3cret", "postgres://db.example/engram?sslpassword=redacted"],
    // A '#' in an unencoded password leaves no URL to read.
    ["postgres://engram:p#s3cret@db.example/engram", "(not a URL)"],
    ["postgres://db.example/engram#s3cret", "postgres://db.example/engram"],
    ["not a url with s3cret", "(not a URL)"],
  ])("shows %s as %s", (url, shown) => {
    expect(redactedUrl(url)).toBe(shown);
    expect(redactedUrl(url)).not.toContain("s3cret");
  });
});
