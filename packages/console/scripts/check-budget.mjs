// The first-page budget, checked after every build: for each page someone may open first, the gzipped
// JavaScript it loads (the entry, the page's chunk and everything they import) must fit the budget.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const BUDGET_BYTES = 250 * 1024;
// The build folder: the package's dist/, or the one named on the command line.
const dist = process.argv[2] ? pathToFileURL(`${resolve(process.argv[2])}/`) : new URL("../dist/", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL(".vite/manifest.json", dist), "utf8"));

const gzipped = new Map();
const sizeOf = (file) => {
  if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(new URL(file, dist)), { level: 9 }).length);
  return gzipped.get(file);
};

/** Every file a chunk loads before it runs: itself and its static imports, transitively. */
function closure(key, files = new Set()) {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return files;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) closure(imported, files);
  return files;
}

const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
const pages = Object.keys(manifest).filter((key) => key.startsWith("src/pages/") && manifest[key].isDynamicEntry);
if (!entryKey || pages.length === 0) throw new Error("The build manifest names no entry or no pages: was the console built?");

const rows = pages.map((page) => {
  const files = closure(page, closure(entryKey));
  return { page: page.replace(/^src\/pages\//, ""), bytes: [...files].reduce((sum, file) => sum + sizeOf(file), 0) };
});
rows.sort((a, b) => b.bytes - a.bytes);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
for (const { page, bytes } of rows) console.log(`${kb(bytes).padStart(9)}  ${page}`);
const over = rows.filter((row) => row.bytes > BUDGET_BYTES);
if (over.length > 0) {
  console.error(`First-page JavaScript over the ${kb(BUDGET_BYTES)} gzipped budget: ${over.map((row) => row.page).join(", ")}`);
  process.exit(1);
}
console.log(`First-page JavaScript within budget: largest ${kb(rows[0].bytes)} of ${kb(BUDGET_BYTES)} gzipped.`);
