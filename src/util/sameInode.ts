// Whether two paths are links to one file: the build's outputs share files between slots and at
// aliases' paths as hard links (src/write/writeOutput.ts).
import { statSync } from "node:fs";

/** Whether two paths are links to one file; false when either cannot be read. */
export function sameInode(a: string, b: string): boolean {
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.ino === y.ino && x.dev === y.dev;
  } catch {
    // Either path cannot be stat'ed: they are not known to be one file.
    return false;
  }
}
