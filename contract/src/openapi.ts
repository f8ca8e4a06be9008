import { generateOpenApi } from "@ts-rest/open-api";
import { type OpenAPIObject, OpenApiBuilder } from "openapi3-ts/oas30";
import { apiContract, capabilitiesInterfaceVersion, contract, interfaceVersion, reflectionInterfaceVersion } from "./index";

export { interfaceVersion };

type OperationMapper = NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>["operationMapper"]>;

/** Puts a route's `metadata.example` on its JSON request body. */
const withRequestExample: OperationMapper = (operation, route) => {
  const example = (route.metadata as { example?: unknown } | undefined)?.example;
  const body = operation.requestBody;
  const json = body && "content" in body ? body.content["application/json"] : undefined;
  if (example === undefined || !body || !json) return operation;
  return { ...operation, requestBody: { ...body, content: { "application/json": { ...json, example } } } };
};

/** Routes marked `metadata.public` (the health check) need no token. */
const withPublicSecurity: OperationMapper = (operation, route) =>
  (route.metadata as { public?: boolean } | undefined)?.public ? { ...operation, security: [] } : operation;

/** Chat routes answer `text/event-stream` as well when the request asks to stream. */
const withEventStream: OperationMapper = (operation, route) => {
  const ok = operation.responses?.["200"];
  if (!route.path.endsWith("/chat/completions") || !ok || !("content" in ok) || !ok.content) return operation;
  const stream = { schema: { type: "string", description: "`data: <chat.completion.chunk JSON>` lines, ending with `data: [DONE]`" } };
  return { ...operation, responses: { ...operation.responses, "200": { ...ok, content: { ...ok.content, "text/event-stream": stream } } } };
};

const operationMapper: OperationMapper = (operation, route) =>
  [withRequestExample, withPublicSecurity, withEventStream].reduce((op, mapper) => mapper(op, route), operation);

const PRIVATE_TAG = "Application (private, unstable)";

/** The reflection routes are versioned on their own; the other `/api` routes share the capabilities version. */
const interfaceVersionOf = (path: string) => (path.startsWith("/api/memory/reflection/") ? reflectionInterfaceVersion : capabilitiesInterfaceVersion);

/**
 * The session-backed `/api` routes are private application routes, not a stable public contract: tagged and
 * marked so generators and readers can leave them out, with their own interface version and the session
 * cookie as their security (signing in needs none).
 */
const asPrivateRoute: OperationMapper = (operation, route) => ({
  ...operation,
  tags: [PRIVATE_TAG],
  security: (route.metadata as { public?: boolean } | undefined)?.public ? [] : [{ sessionCookie: [] }],
  "x-engram-private": true,
  "x-engram-stability": "unstable",
  "x-engram-interface-version": interfaceVersionOf(route.path),
});

/** The console's memory router shares the name `memory` with /v1's: its operation ids are told apart here. */
const withDistinctOperationId: OperationMapper = (operation) =>
  operation.operationId?.startsWith("memory.") ? { ...operation, operationId: `memoryExplorer.${operation.operationId.slice("memory.".length)}` } : operation;

/**
 * Builds the OpenAPI 3 document from the contract. Kept out of the package index so the SDK bundle
 * never carries the generator; `scripts/write-openapi.ts` writes the result to `openapi.json`.
 */
export function buildOpenApiDocument(): OpenAPIObject {
  const paths = generateOpenApi(
    contract,
    {
      info: {
        title: "Engram API",
        version: interfaceVersion,
        description:
          "Organization memory for AI assistants, and an OpenAI-compatible inference gateway grounded in it. Authenticate with `Authorization: Bearer acm_…`; the token selects the organization and environment.",
      },
    },
    { setOperationId: "concatenated-path", operationMapper },
  ) as unknown as OpenAPIObject;
  const applicationPaths = generateOpenApi(
    apiContract,
    { info: { title: "Engram application routes", version: capabilitiesInterfaceVersion } },
    { setOperationId: "concatenated-path", operationMapper: (operation, route) => asPrivateRoute(withDistinctOperationId(withRequestExample(operation, route), route), route) },
  ) as unknown as OpenAPIObject;

  const document = OpenApiBuilder.create({ ...paths, paths: { ...paths.paths, ...applicationPaths.paths } })
    .addServer({ url: "http://localhost:8787", description: "A local Engram server" })
    .addSecurityScheme("bearerAuth", { type: "http", scheme: "bearer", description: "An organization access token (acm_…)" })
    .addSecurityScheme("sessionCookie", {
      type: "apiKey",
      in: "cookie",
      name: "engram_session",
      description:
        "The session cookie set by POST /api/auth/login (the `/api` routes only). Unsafe requests also need this application's Origin, or the session's X-CSRF-Token.",
    })
    .addTag({ name: PRIVATE_TAG, description: `Session-backed routes for people and the console (interface version ${capabilitiesInterfaceVersion}): private and unstable, not a public contract.` })
    .getSpec();
  return { ...document, security: [{ bearerAuth: [] }] };
}
