import { generateOpenApi } from "@ts-rest/open-api";
import { type OpenAPIObject, OpenApiBuilder } from "openapi3-ts/oas30";
import { contract } from "./index";

/** The version of the published interface (spec section 9). */
export const interfaceVersion = "3.12.3";

type OperationMapper = NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>["operationMapper"]>;

/** Puts a route's `metadata.example` on its JSON request body. */
const withRequestExample: OperationMapper = (operation, route) => {
  const example = (route.metadata as { example?: unknown } | undefined)?.example;
  const body = operation.requestBody;
  const json = body && "content" in body ? body.content["application/json"] : undefined;
  if (example === undefined || !body || !json) return operation;
  return { ...operation, requestBody: { ...body, content: { "application/json": { ...json, example } } } };
};

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
          "Organization memory for AI assistants. Authenticate with `Authorization: Bearer acm_…`; the token selects the organization and environment.",
      },
    },
    { setOperationId: "concatenated-path", operationMapper: withRequestExample },
  ) as unknown as OpenAPIObject;

  const document = OpenApiBuilder.create(paths)
    .addServer({ url: "http://localhost:8787", description: "A local Engram server" })
    .addSecurityScheme("bearerAuth", { type: "http", scheme: "bearer", description: "An organization access token (acm_…)" })
    .getSpec();
  return { ...document, security: [{ bearerAuth: [] }] };
}
