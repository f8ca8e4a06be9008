import { generateOpenApi } from "@ts-rest/open-api";
import type { AppRoute } from "@ts-rest/core";
import type { OpenAPIObject, OperationObject } from "openapi3-ts/oas30";
import { contract } from "./index";

/** The version of the published interface (spec section 9). */
export const interfaceVersion = "3.12.3";

/**
 * Builds the OpenAPI 3 document from the contract. Kept out of the package index so the SDK bundle
 * never carries the generator; `scripts/write-openapi.ts` writes the result to `openapi.json`.
 */
export function buildOpenApiDocument(): OpenAPIObject {
  const document = generateOpenApi(
    contract,
    {
      info: {
        title: "Engram API",
        version: interfaceVersion,
        description:
          "Organization memory for AI assistants. Authenticate with `Authorization: Bearer acm_…`; the token selects the organization and environment.",
      },
      servers: [{ url: "http://localhost:8787", description: "A local Engram server" }],
      components: {
        securitySchemes: {
          bearerAuth: { type: "http", scheme: "bearer", description: "An organization access token (acm_…)" },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    { setOperationId: "concatenated-path", operationMapper: withRequestExample },
  );
  return document as unknown as OpenAPIObject;
}

function withRequestExample(operation: OperationObject, route: AppRoute): OperationObject {
  const example = (route.metadata as { example?: unknown } | undefined)?.example;
  const json = operation.requestBody && "content" in operation.requestBody ? operation.requestBody.content["application/json"] : undefined;
  if (example === undefined || !json) return operation;
  return {
    ...operation,
    requestBody: { ...operation.requestBody, content: { "application/json": { ...json, example } } },
  };
}
