// What changed inside a package whose zip or meta.xml changed: the files its zip holds (by name,
// size and CRC-32, as the central directory declares them; nothing is unpacked) and meta.xml's
// lines. The bytes come from each side's reader; a zip that cannot be read leaves its entries out.
import yauzl from "yauzl";
import { compareCodePoints } from "../util/codePoints.js";
import type { AppUpdate, Comparison, ZipEntryChange } from "./compareSnapshots.js";
import type { IndexedFile } from "../trust/fileIndex.js";
import type { AppRecord, Snapshot } from "./readSnapshot.js";
import { lineDiff } from "./wordDiff.js";

/** The bytes of a side's indexed file, or undefined when they cannot be had. */
export type FileBytes = (file: IndexedFile) => Promise<Uint8Array | undefined>;

/** Entries of a zip read at most: a package has tens; a hostile one is not listed past this. */
const MAX_ENTRIES = 10_000;

type Entries = Map<string, { size: number; crc32: number }>;

/** A zip's files (folders left out) by name, from its central directory; undefined when it is no readable zip. */
export async function listZipEntries(bytes: Uint8Array): Promise<Entries | undefined> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromBuffer(Buffer.from(bytes), { lazyEntries: true, validateEntrySizes: false }, (error, file) =>
        error ? reject(error) : resolve(file),
      ),
    );
  } catch {
    return undefined;
  }
  if (zip.entryCount > MAX_ENTRIES) {
    zip.close();
    return undefined;
  }
  return new Promise<Entries | undefined>((resolve) => {
    const entries: Entries = new Map();
    zip.on("entry", (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith("/"))
        entries.set(entry.fileName, { size: entry.uncompressedSize, crc32: entry.crc32 });
      zip.readEntry();
    });
    zip.on("end", () => resolve(entries));
    zip.on("error", () => resolve(undefined));
    zip.readEntry();
  });
}

/** The files added, removed or changed from one zip's entries to another's, by name. */
export function zipEntryChanges(a: Entries, b: Entries): ZipEntryChange[] {
  const names = [...new Set([...a.keys(), ...b.keys()])].sort(compareCodePoints);
  return names.flatMap((path) => {
    const from = a.get(path) ?? null;
    const to = b.get(path) ?? null;
    return from && to && from.size === to.size && from.crc32 === to.crc32 ? [] : [{ path, from, to }];
  });
}

const utf8 = new TextDecoder("utf-8");

/** Fills each updated app's zip entries and meta.xml lines from the two sides' bytes. */
export async function addPackageContents(
  comparison: Comparison,
  sides: { a: Snapshot; b: Snapshot; readA: FileBytes; readB: FileBytes },
): Promise<void> {
  for (const host of comparison.hosts) {
    for (const update of host.updated) {
      const from = sides.a.hosts.get(host.host)?.apps.get(update.name);
      const to = sides.b.hosts.get(host.host)?.apps.get(update.name);
      if (from && to) await addContents(update, from, to, sides);
    }
  }
}

async function addContents(
  update: AppUpdate,
  from: AppRecord,
  to: AppRecord,
  sides: { readA: FileBytes; readB: FileBytes },
): Promise<void> {
  const changed = new Set(update.files.map((f) => f.kind));
  if (changed.has("archive") && from.files.archive && to.files.archive) {
    const [a, b] = await Promise.all([sides.readA(from.files.archive), sides.readB(to.files.archive)]);
    const [entriesA, entriesB] = await Promise.all([a && listZipEntries(a), b && listZipEntries(b)]);
    if (entriesA && entriesB) update.zipEntries = zipEntryChanges(entriesA, entriesB);
  }
  if (changed.has("meta") && from.files.meta && to.files.meta) {
    const [a, b] = await Promise.all([sides.readA(from.files.meta), sides.readB(to.files.meta)]);
    if (a && b) update.metaXml = lineDiff(utf8.decode(a), utf8.decode(b));
  }
}
