import { defineConfig } from "tsup";

// The contract is inlined so the published package stands alone; zod and ts-rest stay dependencies.
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  noExternal: ["@engram/contract"],
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});
