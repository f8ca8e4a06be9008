import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/** During `pnpm --filter @engram/console dev`, /api and /v1 go to a running Engram server. */
const engram = process.env.ENGRAM_URL ?? "http://localhost:8787";

export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ["source"] },
  build: {
    outDir: "dist",
    // The budget check reads which chunks the first page loads.
    manifest: true,
    sourcemap: false,
  },
  server: { proxy: { "/api": engram, "/v1": engram } },
});
