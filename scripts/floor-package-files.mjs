// @ts-check
// The floor of storing a catalogue's package files: copy each package's archive, icon, binary and
// meta.xml, made beforehand, to the paths a build stores them at (src/routes/packageFileLayout.ts:
// the default host's at the root, every other host's under hosts/<host>/), making each folder once.
// Nothing is read but the bytes copied (copyFileSync: the kernel copies them), nothing zipped,
// unpacked, checked or hashed. scripts/bench-files.mjs times it after floor.mjs, which writes the
// API into the same OUT (floor.mjs empties OUT first, so run it first).
// usage: node scripts/floor-package-files.mjs SOURCES OUT DEFAULT_HOST
//   SOURCES holds <host>/<name>/ folders, each with <name>.zip, icon.png, meta.xml and boot.dol or boot.elf.
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

const [sources, out, defaultHost] = process.argv.slice(2);
if (!sources || !out || !defaultHost) {
  console.error("usage: floor-package-files.mjs SOURCES OUT DEFAULT_HOST");
  process.exit(2);
}
for (const host of readdirSync(sources)) {
  const prefix = host === defaultHost ? out : join(out, "hosts", host);
  for (const name of readdirSync(join(sources, host))) {
    const from = join(sources, host, name);
    const hbb = join(prefix, "hbb", name);
    const app = join(prefix, "unzipped_apps", name, "apps", name);
    mkdirSync(hbb, { recursive: true });
    mkdirSync(app, { recursive: true });
    for (const file of readdirSync(from)) {
      const to = file.endsWith(".zip") || file === "icon.png" ? join(hbb, file) : join(app, file);
      copyFileSync(join(from, file), to);
    }
  }
}
