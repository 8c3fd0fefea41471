// @ts-check
// The floor of storing a catalogue's package files: the least work any build that publishes them
// must do. A package kept as a zip is published byte for byte, so its bytes must be copied once; a
// package kept as a folder is published as a zip the build makes, so each of its files must be
// deflated once; and both serve their binary, icon and meta.xml unpacked beside the archive, so those
// bytes must be written once. This floor does exactly that and nothing else: each zip is copied
// (copyFileSync: the kernel copies it), each folder file read once and deflated once by Node's zlib
// at the build's settings (level 9, memory level 8, src/packageFiles/zipPackageFolder.ts) into the
// archive's path (the deflated streams one after another: a zip's headers are a few bytes), and the
// unpacked files, made beforehand, copied to their stored paths (src/routes/packageFileLayout.ts: the
// default host's at the root, every other host's under hosts/<host>/), making each folder once.
// Nothing is checked, inflated or hashed, and it runs on one thread: a build may spread the same
// work over more cores, or skip it for files it already holds.
// scripts/bench-files.mjs times it after floor.mjs, which writes the API into the same OUT (floor.mjs
// empties OUT first, so run it first).
// usage: node scripts/floor-package-files.mjs SOURCES OUT DEFAULT_HOST
//   SOURCES holds <host>/<name>/ folders, each with icon.png, meta.xml and boot.dol or boot.elf, and
//   <name>.zip for a package kept as a zip; without it, those three files are the folder's files.
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";

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
    const files = readdirSync(from).sort();
    const archive = `${name}.zip`;
    const to = (file) => (file === archive || file === "icon.png" ? join(hbb, file) : join(app, file));
    if (files.includes(archive)) {
      for (const file of files) copyFileSync(join(from, file), to(file));
      continue;
    }
    // One read per file: its bytes are deflated into the archive and written unpacked.
    const fd = openSync(join(hbb, archive), "w");
    for (const file of files) {
      const bytes = readFileSync(join(from, file));
      writeSync(fd, deflateRawSync(bytes, { level: 9, memLevel: 8 }));
      writeFileSync(to(file), bytes);
    }
    closeSync(fd);
  }
}
