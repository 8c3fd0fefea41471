// The compiled CLI (lib/), for the edge tests: the functions that an edge target embeds must come
// from lib/, because vitest's module transform rewrites a call from one module's function to
// another's (matchRequest calling coderKey) into a reference to its own import object, which the
// embedded copy does not have.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../helpers.js";

/** Runs `shopfront <args>` with the compiled CLI; throws with its output when it fails. */
export function runCompiledCli(args: readonly string[]): void {
  const cli = spawnSync(process.execPath, [join(ROOT, "lib", "cli.js"), ...args], { encoding: "utf8" });
  if (cli.status !== 0)
    throw new Error(`shopfront ${args.join(" ")} failed (npm test compiles lib/ first):\n${cli.stdout}${cli.stderr}`);
}
