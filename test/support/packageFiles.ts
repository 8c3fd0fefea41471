// Stand-in for the build's package files (issue 29): until the build writes them, the tests add the
// stored files of a few packages to a built output at packageFileLayout.ts's paths, and the same
// bytes to what the conformance suite expects. Replace this one helper by the real build's output.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ExpectedApi } from "../../src/check/conformance.js";
import { packageFilePaths, packageFilesPrefix, type BinaryName } from "../../src/routes/packageFileLayout.js";
import { HBB_HOST_FILES, HBB_REPO_LIST, HBB_STUBS } from "../../src/routes/hbbRoutes.js";
import type { RenderedCatalogue } from "../../src/render/renderApi.js";
import { aliasFilesOf } from "../../src/routes/routeTable.js";

/** hosts.json's `default` in the conformance fixture. */
export const FIXTURE_DEFAULT_HOST = "primary";

/** Bytes that no text decoding keeps as they are (NUL, CR LF, 0x80-0xFF), so a host that re-encodes them fails. */
function binaryBytes(label: string, size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 37 + label.length * 11) & 0xff;
  return Buffer.concat([Buffer.from(`${label}\r\n\0`, "latin1"), bytes]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/**
 * The stored files of up to `perHost` packages of each host (the first with boot.dol, the second
 * with boot.elf), and the Homebrew Browser's files, by path relative to the built tree's root.
 */
export function fakePackageFiles(catalogue: RenderedCatalogue, defaultHost: string, perHost = 2): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const [host, packages] of catalogue.packages) {
    packages.slice(0, perHost).forEach(({ name }, index) => {
      const binary: BinaryName = index % 2 === 0 ? "boot.dol" : "boot.elf";
      const paths = packageFilePaths(host, defaultHost, name, binary);
      files.set(paths.archive, Buffer.concat([ZIP_SIGNATURE, binaryBytes(`${host}/${name}.zip`, 700)]));
      files.set(paths.icon, Buffer.concat([PNG_SIGNATURE, binaryBytes(`${host}/${name}.png`, 300)]));
      files.set(paths.binary, binaryBytes(`${host}/${name}/${binary}`, 500));
      files.set(paths.meta, Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<app><name>${name}</name></app>\n`));
    });
  }
  // The Homebrew Browser's surface, which the build writes with the package files: lists in UTF-8
  // with CRLF, the icon archive as binary, the stubs as they answer.
  files.set(
    HBB_REPO_LIST,
    Buffer.from("1\r\nFixture\r\nhbb1.example.org\r\n/hbb/homebrew_browser/listv036.txt\r\n/hbb/\r\n"),
  );
  for (const host of catalogue.hosts) {
    const prefix = packageFilesPrefix(host.id, defaultHost);
    const list = Buffer.from(`Homebrew 1 ${host.id} Bl\u00f6cke\r\n=Demos=\r\n`, "utf8");
    files.set(`${prefix}${HBB_HOST_FILES.list}`, list);
    files.set(`${prefix}${HBB_HOST_FILES.shortList}`, list);
    files.set(`${prefix}${HBB_HOST_FILES.icons}`, Buffer.concat([ZIP_SIGNATURE, binaryBytes(`${host.id}/icons`, 400)]));
  }
  for (const [path, body] of Object.entries(HBB_STUBS)) files.set(path, Buffer.from(body));
  return files;
}

/** Writes the files into a built tree (`root`, the `dist` link or a slot). */
export function writePackageFiles(root: string, files: ReadonlyMap<string, Buffer>): void {
  for (const [path, bytes] of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), bytes);
  }
}

/** What the conformance suite expects once the files are in the build: their bytes, as it compares bodies (latin1). */
export function withPackageFiles(api: ExpectedApi, files: ReadonlyMap<string, Buffer>): ExpectedApi {
  const all = new Map(api.files);
  for (const [path, bytes] of files) all.set(path, bytes.toString("latin1"));
  return { files: all, packages: api.packages };
}

/** The copies a host that cannot rewrite needs (aliasFilesOf), as the build will write them for it. */
export function aliasCopies(files: ReadonlyMap<string, Buffer>): Map<string, Buffer> {
  return new Map(
    [...files].flatMap(([path, bytes]) => aliasFilesOf(path).map((alias): [string, Buffer] => [alias, bytes])),
  );
}
