import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { freshDatabase, startServerOn } from "@engram/test-support";
import { isEveryInterface, normalHost, type RunningServer } from "../src/server";

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

describe("HOST for every interface", () => {
  it.each(["0.0.0.0", "::", "0", "0.0", "::0", "0:0:0:0:0:0:0:0", "::ffff:0.0.0.0", "::ffff:0:0"])("is told in any spelling (%s)", (host) => {
    expect(isEveryInterface(host)).toBe(true);
  });

  it.each(["127.0.0.1", "::1", "localhost", "10.0.0.1", "not a host"])("and only then (%s)", (host) => {
    expect(isEveryInterface(host)).toBe(false);
  });

  it.each([
    ["0", "0.0.0.0"],
    ["::0", "[::]"],
    ["0:0:0:0:0:0:0:1", "[::1]"],
    ["LocalHost", "localhost"],
    ["fe80::1%eth0", "[fe80::1%eth0]"],
    ["not a host", "not a host"],
  ])("is told as URLs write it (%s as %s)", (host, told) => {
    expect(normalHost(host)).toBe(told);
  });

  it.each(["0", "::ffff:0.0.0.0"])("gives a URL this machine can use when spelled %s", async (host) => {
    const server = await startServerOn(await freshDatabase(), { host, port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
