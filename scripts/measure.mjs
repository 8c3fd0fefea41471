// @ts-check
// Runs a Node script as if it were the main module and reports its peak RSS: the benchmark runs
// shopfront and the floor through it, so both are measured the same way.
// usage: node scripts/measure.mjs SCRIPT [ARGS...]   (prints {"maxRssKb":N} as the last stderr line)
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [script, ...args] = process.argv.slice(2);
if (!script) {
  console.error("usage: measure.mjs SCRIPT [ARGS...]");
  process.exit(2);
}
process.argv = [process.argv[0] ?? "node", resolve(script), ...args];

/**
 * This process's peak RSS in kB: Linux's VmHWM, which starts afresh at exec, where getrusage's
 * maxRSS keeps the parent's peak when it was forked (a benchmark holding 1 GB of generated package
 * files made every command it ran report 1,082 MB); elsewhere getrusage's.
 */
function peakRssKb() {
  try {
    const line = readFileSync("/proc/self/status", "latin1")
      .split("\n")
      .find((l) => l.startsWith("VmHWM:"));
    const kb = line === undefined ? NaN : Number.parseInt(line.slice("VmHWM:".length), 10);
    if (Number.isFinite(kb)) return kb;
  } catch {
    // No /proc (not Linux): getrusage's figure.
  }
  return process.resourceUsage().maxRSS;
}
process.on("exit", () => process.stderr.write(`\n${JSON.stringify({ maxRssKb: peakRssKb() })}\n`));
await import(pathToFileURL(resolve(script)).href);
