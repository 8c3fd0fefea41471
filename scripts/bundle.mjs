// Run by `npm install` (prepare) and `npm run compile`, after tsc: bundles the command line
// (lib/cli/main.js and the ~160 modules it imports) into lib/bundle/, which lib/cli.js runs. Node
// resolves, reads and links each ES module on its own, and for a short command that was most of the
// run: `shopfront --version` took 0.45 s to load its modules, a no-op build of 2,000 packages 1.0 s
// in all. The bundle is the same code in a few files (the commands loaded on use stay chunks of
// their own). lib/bundle/ sits where every module of lib/ does, a folder below lib/, so the paths
// they take from import.meta.url (../../schemas/, ../validators.cjs) hold in it too. The project's
// dependencies stay outside it, imported from node_modules as before.
import { readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { rolldown } from "rolldown";

const ROOT = new URL("../", import.meta.url);
const OUT = new URL("lib/bundle/", ROOT);
const { dependencies } = JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8"));
const outside = new Set([...Object.keys(dependencies), ...builtinModules]);

rmSync(OUT, { recursive: true, force: true });
const bundle = await rolldown({
  input: new URL("lib/cli/main.js", ROOT).pathname,
  platform: "node",
  // A dependency's own subpaths too (@aws-sdk/client-s3, node:fs/promises).
  external: (id) => id.startsWith("node:") || [...outside].some((name) => id === name || id.startsWith(`${name}/`)),
});
await bundle.write({
  dir: OUT.pathname,
  format: "esm",
  entryFileNames: "[name].js",
  chunkFileNames: "[name]-[hash].js",
});
await bundle.close();
