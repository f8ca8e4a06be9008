import { defineConfig } from "tsup";

// The contract is inlined (code and types) so the published package stands alone: it has no server code, and
// zod, @ts-rest/core and eventsource-parser stay ordinary dependencies.
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  // `paths` lets the declaration bundler read the contract's source; stripInternal keeps the transport's
  // (large, inferred) client type out of the public declarations.
  dts: { compilerOptions: { paths: { "@engram/contract": ["../contract/src/index.ts"] }, stripInternal: true } },
  clean: true,
  target: "node20",
  noExternal: ["@engram/contract"],
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});
