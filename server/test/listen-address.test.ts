import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { freshDatabase, startServerOn } from "@engram/test-support";
import type { RunningServer } from "../src/server";

/** Whether this machine has an IPv6 loopback to listen on (some containers have none). */
const ipv6Loopback = await new Promise<boolean>((resolve) => {
  const probe = createServer().once("error", () => resolve(false));
  probe.listen(0, "::1", () => probe.close(() => resolve(true)));
});

describe.runIf(ipv6Loopback)("a server on an IPv6 address", () => {
  let server: RunningServer | undefined;
  afterAll(() => server?.close());

  it("tells its URL with the address in brackets, as URLs write it, and answers there", async () => {
    server = await startServerOn(await freshDatabase(), { host: "::1", port: 0 });
    expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
  });
});
