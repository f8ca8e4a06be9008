/**
 * Shared test support: real servers on either backend, tenants, requests, a second server process, network
 * stand-ins and local upstreams. For vitest test files only (it registers cleanup hooks); the throwaway Postgres
 * alone is `@engram/test-support/local-postgres`, and the global setups are under src/global-setup.
 */
export { databaseUnderTest, freshDatabase } from "./database";
export { listenOnLoopback } from "./listen";
export { apiClient, rawRequest } from "./requests";
export { SessionClient, type SessionRequest, type SessionResponse } from "./session-client";
export { type ServerBehindProxy, useServerBehindProxy } from "./server-behind-proxy";
export { type ServerProcess, startServerProcess } from "./server-process";
export { startServerOn, startTestServer, type TestServer, type TestServerOptions } from "./test-server";
export { temporaryDirectory } from "./temporary-directory";
export { startTcpProxy, type TcpProxy } from "./tcp-proxy";
export { errorBody, type Scripted, type ScriptedProxy, type SeenRequest, startScriptedProxy } from "./scripted-proxy";
export { answer, type Behaviour, type ChatUpstream, fail, failMidStream, hang, type ReceivedRequest, startChatUpstream } from "./chat-upstream";
export { conceptVector, startEmbeddingsServer } from "./embeddings-server";
export { type EngramServe, isAlive, onNewConnection, startEngramServe } from "./engram-serve";
