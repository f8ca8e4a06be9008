import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { startScriptedProxy, type ScriptedProxy } from "./scripted-proxy";
import { startTestServer, type TestServer, type TestServerOptions } from "./test-server";

export interface ServerBehindProxy {
  server: TestServer;
  proxy: ScriptedProxy;
}

/**
 * The real server for the file's tests, behind a scripted proxy: one proxy for the whole file, or a new one for
 * each test (`proxyPerTest`), so that every test starts with an empty script and no requests seen.
 * Fields are set once the hooks have run.
 */
export function useServerBehindProxy(options: TestServerOptions & { proxyPerTest?: boolean } = {}): ServerBehindProxy {
  const { proxyPerTest = false, ...settings } = options;
  const fixture = {} as ServerBehindProxy;
  const startProxy = async () => {
    fixture.proxy = await startScriptedProxy(fixture.server.url);
  };
  const closeProxy = () => fixture.proxy?.close();
  beforeAll(async () => {
    fixture.server = await startTestServer(settings);
    if (!proxyPerTest) await startProxy();
  });
  if (proxyPerTest) {
    beforeEach(startProxy);
    afterEach(closeProxy);
  }
  afterAll(async () => {
    if (!proxyPerTest) await closeProxy();
    await fixture.server?.stop();
  });
  return fixture;
}
