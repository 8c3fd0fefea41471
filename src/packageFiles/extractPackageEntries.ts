// Writes chosen entries of a checked archive to files: what the Open Shop Channel serves beside the
// archive (the icon, and meta.xml and the binary under /unzipped_apps/). Call it only for an archive
// that inspectPackageZip passed; yauzl still holds each entry to its declared size (validateEntrySizes).
import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";

/** Copies each `entry` (a name as inspectPackageZip reports it) of the archive to `to`. */
export async function extractPackageEntries(
  archive: string,
  wanted: readonly { entry: string; to: string }[],
): Promise<void> {
  const zipfile = await yauzl.openPromise(archive, { lazyEntries: true, autoClose: false, decodeStrings: false });
  try {
    const left = new Map(wanted.map((w) => [w.entry, w.to]));
    for await (const entry of zipfile.eachEntry()) {
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
      const to = left.get(name);
      if (to === undefined) continue;
      left.delete(name);
      await mkdir(dirname(to), { recursive: true });
      await pipeline(await zipfile.openReadStreamPromise(entry), createWriteStream(to));
      if (left.size === 0) break;
    }
    if (left.size > 0) throw new Error(`${archive} has no entry ${[...left.keys()].join(", ")}`);
  } finally {
    zipfile.close();
  }
}
