// A package kept as a folder is zipped by the build, and its archive is checked by what the build
// read as it zipped it, not by reading the archive back: the central directory it wrote is judged as
// any archive's is (checkZipEntries), and the parts a package needs (meta.xml, the icon's first
// bytes, the binary's hashes) are kept, and the entries served beside the archive written, from the
// bytes as they were deflated, so the build never inflates the archive it just deflated. What it
// derives is what inspectPackageZip derives of the same archive (deriveFiles.ts), which a test holds.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { isError } from "../catalogue/problems.js";
import { checkZipEntries, packageFinding, type PackageFinding } from "./checkZipEntries.js";
import { deriveFiles, EntryTap, servedRole } from "./deriveFiles.js";
import type { PackageZipReport } from "./inspectPackageZip.js";
import { zipPackageFolder } from "./zipPackageFolder.js";
import type { ZipLimits } from "./zipLimits.js";

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
  const taps = new Map<string, EntryTap>();
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
          const tap = new EntryTap(role, unpackTo && role.served && join(unpackTo, role.served));
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
