import { defineConfig } from "tsup";

// One self-contained CLI bundle: the workspace packages are inlined from source, npm dependencies stay external.
export default defineConfig({
  entry: { cli: "src/cli.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20",
  clean: true,
  noExternal: [/^@engram\//],
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});
