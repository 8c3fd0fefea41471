// @ts-check
// Runs a Node script as if it were the main module and reports its peak RSS: the benchmark runs
// shopfront and the floor through it, so both are measured the same way.
// usage: node scripts/measure.mjs SCRIPT [ARGS...]   (prints {"maxRssKb":N} as the last stderr line)
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [script, ...args] = process.argv.slice(2);
if (!script) {
  console.error("usage: measure.mjs SCRIPT [ARGS...]");
  process.exit(2);
}
process.argv = [process.argv[0] ?? "node", resolve(script), ...args];
process.on("exit", () => process.stderr.write(`\n${JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS })}\n`));
await import(pathToFileURL(resolve(script)).href);
