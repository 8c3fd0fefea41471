// Preloaded into a build (`node --import`) by the kill tests: the process stops itself (SIGSTOP)
// at its STOP_AT_CALL-th call of openSync, writeFileSync, linkSync or renameSync, the calls that
// read the catalogue and write the output, so a test can kill it at that moment and know the
// kill landed before the build finished. The build's own code is not changed, only counted.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const stopAt = Number(process.env.STOP_AT_CALL);
let calls = 0;
for (const name of /** @type {const} */ (["openSync", "writeFileSync", "linkSync", "renameSync"])) {
  const original = /** @type {(...args: unknown[]) => unknown} */ (fs[name]);
  /** @type {any} */ (fs)[name] = function (/** @type {unknown[]} */ ...args) {
    if (++calls === stopAt) process.kill(process.pid, "SIGSTOP");
    return original.apply(this, args);
  };
}
// The named imports of node:fs (`import { openSync } from "node:fs"`) follow the module object.
syncBuiltinESMExports();
