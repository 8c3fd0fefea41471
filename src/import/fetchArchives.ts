// The packages' archives of an import, a few at once: each one that is already in the catalogue and
// whole (the size and MD5 the API states) is left as it is, any other fetched by downloadArchive.
// A failure is that package's, never the run's: the rest go on.
import { lstat, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { forEachConcurrently } from "../util/forEachConcurrently.js";
import {
  copyArchive,
  downloadArchive,
  fileDigest,
  matchesSource,
  refuseUrl,
  type ArchiveSource,
  type LocalArchive,
} from "./downloadArchive.js";

export type { ArchiveSource, LocalArchive } from "./downloadArchive.js";

/** A package whose archive is to be had. */
export interface ArchiveJob {
  host: string;
  name: string;
  archive?: ArchiveSource | LocalArchive;
}

export interface DownloadSettings {
  concurrency: number;
  timeoutSeconds: number;
  /** Archives settled (fetched or failed) out of those to fetch, and the bytes received so far. */
  onProgress?: (done: number, total: number, bytes: number) => void;
}

/** A package's archive in the catalogue: `<host>/<name>.zip`. */
export const ARCHIVE_EXTENSION = ".zip";

/** What became of a package's archive: there and whole, fetched now, or why it is not there. */
export type ArchiveOutcome = "whole" | "fetched" | string;

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * The archive of each package (every one has `archive`; names and hosts have passed the name rule)
 * that `<catalogueDir>/<host>/<name>.zip` does not hold whole, fetched into `<into>/<host>/<name>.zip`
 * (the import's staging folder, moved into the catalogue when the import succeeds): an archive
 * already there that differs from what the API states is replaced only with `force`.
 */
export async function fetchArchives<T extends ArchiveJob>(
  packages: readonly T[],
  catalogueDir: string,
  into: string,
  force: boolean,
  settings: DownloadSettings,
): Promise<Map<T, ArchiveOutcome>> {
  const outcomes = new Map<T, ArchiveOutcome>();
  const toFetch: T[] = [];
  for (const pkg of packages) {
    const source = pkg.archive!;
    const refused = "url" in source ? refuseUrl(source.url) : undefined;
    const file = `${pkg.host}/${pkg.name}${ARCHIVE_EXTENSION}`;
    if (refused !== undefined) outcomes.set(pkg, refused);
    else if (await isFolder(join(catalogueDir, pkg.host, pkg.name)))
      outcomes.set(pkg, `${pkg.host}/${pkg.name}/ holds its files as a folder: remove it to import the archive`);
    else {
      const digest = await fileDigest(join(catalogueDir, file));
      if (digest && matchesSource(digest, source)) outcomes.set(pkg, "whole");
      else if (digest && !force)
        outcomes.set(pkg, `${file} exists and is not the archive the API states (--force replaces it)`);
      else toFetch.push(pkg);
    }
  }
  let done = 0;
  let bytes = 0;
  settings.onProgress?.(done, toFetch.length, bytes);
  await forEachConcurrently(toFetch, settings.concurrency, async (pkg) => {
    const source = pkg.archive!;
    await mkdir(join(into, pkg.host), { recursive: true });
    const target = join(into, pkg.host, `${pkg.name}${ARCHIVE_EXTENSION}`);
    const failed =
      "url" in source
        ? await downloadArchive(source, target, {
            timeoutSeconds: settings.timeoutSeconds,
            onBytes: (n) => settings.onProgress?.(done, toFetch.length, (bytes += n)),
          })
        : await copyArchive(source, target);
    outcomes.set(pkg, failed ?? "fetched");
    settings.onProgress?.(++done, toFetch.length, bytes);
  });
  return outcomes;
}
