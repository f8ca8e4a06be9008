import { describe, expect, it } from "vitest";
import { useServerBehindProxy } from "@engram/test-support";
import { APIConnectionError, APITimeoutError, APIUserAbortError, Engram } from "../src";

const setup = useServerBehindProxy({ proxyPerTest: true });

const throughProxy = async (options: { timeoutMs?: number; maxRetries?: number }) =>
  new Engram({ baseUrl: setup.proxy.url, token: (await setup.server.newTenant()).token, ...options });

describe("timeouts against a real server behind a slow proxy", () => {
  it("fails with APITimeoutError when no answer comes within timeoutMs, after retrying", async () => {
    const engram = await throughProxy({ timeoutMs: 200, maxRetries: 1 });
    setup.proxy.script({ delayMs: 5000 }, { delayMs: 5000 });
    const started = performance.now();
    const error = await engram.memory.recall({ query: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ status: undefined, message: "Engram did not answer within 200 ms" });
    expect(setup.proxy.requests).toHaveLength(2);
    // Two timeouts and a backoff, well before either slow answer would have come.
    expect(performance.now() - started).toBeLessThan(4000);
  });

  it("succeeds when a timed-out attempt's retry is answered", async () => {
    // The retry goes to the real server, so its timeout leaves room for a busy machine.
    const engram = await throughProxy({ timeoutMs: 1000 });
    setup.proxy.script({ delayMs: 5000 });
    expect((await engram.memory.encode({ text: "Slow networks happen." }, { idempotencyKey: "slow-1" })).text).toBe("Slow networks happen.");
    expect(setup.proxy.requests.map((r) => r.headers["idempotency-key"])).toEqual(["slow-1", "slow-1"]);
  });

  it("counts a body that stalls after the headers against the timeout", async () => {
    const engram = await throughProxy({ maxRetries: 0 });
    setup.proxy.script({ stallBodyMs: 1500 });
    await expect(engram.memory.recall({ query: "x" }, { timeoutMs: 300 })).rejects.toBeInstanceOf(APITimeoutError);
  });

  it("rejects at once with APIUserAbortError when the caller aborts, without retrying", async () => {
    const engram = await throughProxy({});
    setup.proxy.script({ delayMs: 1500 });
    const controller = new AbortController();
    const call = engram.memory.recall({ query: "x" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toBeInstanceOf(APIUserAbortError);
    expect(setup.proxy.requests).toHaveLength(1);
    await expect(engram.memory.recall({ query: "x" }, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(APIUserAbortError);
    expect(setup.proxy.requests).toHaveLength(1);
  });
});
