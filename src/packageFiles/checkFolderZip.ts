// A package kept as a folder is zipped by the build, and its archive is checked by what the build
// read as it zipped it, not by reading the archive back: the central directory it wrote is judged as
// any archive's is (checkZipEntries), and the parts a package needs (meta.xml, the icon's first
// bytes, the binary's hashes) are kept, and the entries served beside the archive written, from the
// bytes as they were deflated. Inflating its own archive again cost a build of folders a third of
// its CPU; what it derives is what inspectPackageZip derives of the same archive (deriveFiles.ts),
// which a test holds.
import { createHash, type Hash } from "node:crypto";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { isError } from "../catalogue/problems.js";
import { checkZipEntries, packageFinding, type PackageFinding } from "./checkZipEntries.js";
import { deriveFiles, servedRole, type ServedRole, type Unpacked } from "./deriveFiles.js";
import type { PackageZipReport } from "./inspectPackageZip.js";
import { zipPackageFolder } from "./zipPackageFolder.js";
import type { ZipLimits } from "./zipLimits.js";

/** One entry's part as it is read: its size, first bytes and hashes, and its served copy. */
class PartTap {
  size = 0;
  readonly #keep: number;
  readonly #kept: Buffer[] = [];
  #keptBytes = 0;
  readonly #md5: Hash | undefined;
  readonly #sha256: Hash | undefined;
  #out: number | undefined;
  readonly #to: string | undefined;
  #unpacked: Unpacked | undefined;

  constructor(role: ServedRole, to: string | undefined) {
    this.#keep = role.keep;
    this.#md5 = role.hash ? createHash("md5") : undefined;
    this.#sha256 = role.hash ? createHash("sha256") : undefined;
    this.#to = to;
    this.#out = to === undefined ? undefined : openSync(to, "w");
  }

  see(chunk: Buffer): void {
    this.size += chunk.length;
    this.#md5?.update(chunk);
    this.#sha256?.update(chunk);
    if (this.#out !== undefined) for (let done = 0; done < chunk.length;) done += writeSync(this.#out, chunk, done);
    if (this.#keptBytes < this.#keep) {
      // Copied: the chunk's buffer is read over next.
      const part = Buffer.from(chunk.subarray(0, this.#keep - this.#keptBytes));
      this.#kept.push(part);
      this.#keptBytes += part.length;
    }
  }

  close(): void {
    if (this.#out !== undefined) closeSync(this.#out);
    this.#out = undefined;
  }

  /** Removes the served copy (closed first). */
  remove(): void {
    this.close();
    if (this.#to !== undefined) rmSync(this.#to, { force: true });
  }

  /** What was kept, once the entry was read whole. */
  unpacked(): Unpacked {
    if (this.#unpacked) return this.#unpacked;
    const unpacked: Unpacked = { size: this.size, head: Buffer.concat(this.#kept) };
    if (this.#md5 && this.#sha256) {
      unpacked.md5 = this.#md5.digest("hex");
      unpacked.sha256 = this.#sha256.digest("hex");
    }
    return (this.#unpacked = unpacked);
  }
}

/**
 * Zips the package folder `dir` into `archive` (zipPackageFolder) and checks the archive as the
 * package `name`. `findings` are the folder's (zipping refuses a folder with an error, and writes
 * nothing); `report` the archive's, as inspectPackageZip would give, with `unpackTo` getting the
 * served entries; `digest` the folder's content digest.
 */
export async function zipAndCheckFolder(
  dir: string,
  archive: string,
  name: string,
  options: { limits: ZipLimits; unpackTo?: string | undefined },
): Promise<{ findings: PackageFinding[]; digest?: string; report?: PackageZipReport }> {
  const { limits, unpackTo } = options;
  const taps = new Map<string, PartTap>();
  let zipped: Awaited<ReturnType<typeof zipPackageFolder>>;
  try {
    zipped = await zipPackageFolder(dir, archive, {
      watch: (names) => {
        // Which entry is the binary, meta.xml or the icon is the names' alone; the sizes are
        // judged below, against the archive as written.
        const info = (entry: string) => ({
          name: entry,
          compressedSize: 0,
          uncompressedSize: 0,
          compressionMethod: 8,
          encrypted: false,
          unixMode: 0,
        });
        const { layout } = checkZipEntries(names.map(info), name, limits);
        return (entry) => {
          const role = servedRole(layout, entry, limits);
          if (role.keep === 0 && !role.hash && role.served === undefined) return undefined;
          if (unpackTo !== undefined && role.served !== undefined) mkdirSync(unpackTo, { recursive: true });
          const tap = new PartTap(role, unpackTo && role.served && join(unpackTo, role.served));
          taps.set(entry, tap);
          return (chunk) => tap.see(chunk);
        };
      },
    });
  } finally {
    for (const tap of taps.values()) tap.close();
  }
  const { findings, digest, zip } = zipped;
  if (findings.some(isError) || !zip) return { findings };
  if (zip.entries.length > limits.maxEntries) {
    const m = `${zip.entries.length} entries, more than the limit of ${limits.maxEntries}`;
    return { findings, digest, report: { findings: [packageFinding("ZIP_BOMB", m)] } };
  }
  const check = checkZipEntries(zip.entries, name, limits);
  const reported = [...check.findings];
  // Only the entries an archive's check would unpack give their parts, as in inspectPackageZip.
  const unpacked = new Set(check.unpack.map((i) => zip.entries[i]!.name));
  // An entry it would not unpack is not served either.
  for (const [entry, tap] of taps) if (!unpacked.has(entry)) tap.remove();
  const part = (entry: string) => (unpacked.has(entry) ? taps.get(entry)?.unpacked() : undefined);
  const derived = check.layout && deriveFiles(check.layout, part, limits, reported);
  if (!derived) return { findings, digest, report: { findings: reported } };
  const { size, hashes } = zip;
  return {
    findings,
    digest,
    report: {
      derived: { zip_size: size, zip_md5: hashes.md5, zip_sha256: hashes.sha256, ...derived },
      findings: reported,
    },
  };
}
