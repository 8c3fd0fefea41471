// The release dates a host's manifests state, for placing a date that had to be guessed below them.
// Lenient: a manifest that cannot be read gives no date (validate reports it, not this).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { hasGuessedDate } from "../catalogue/guessedDate.js";
import { readSourceFile } from "./readCatalogue.js";

const MAX_MANIFEST_BYTES = 1024 * 1024;

/** The integer `release_date`s of the manifests in `catalogueDir/host/`, but those still guessed. */
export function readReleaseDates(catalogueDir: string, host: string): number[] {
  const dir = join(catalogueDir, host);
  if (!existsSync(dir)) return [];
  const dates: number[] = [];
  for (const file of readdirSync(dir)) {
    if (!file.endsWith(".json")) continue;
    const source = readSourceFile(join(dir, file), MAX_MANIFEST_BYTES);
    if (!("bytes" in source)) continue;
    try {
      const manifest = JSON.parse(Buffer.from(source.bytes).toString("utf8")) as { release_date?: unknown };
      const date = manifest.release_date;
      if (!hasGuessedDate(manifest) && typeof date === "number" && Number.isInteger(date) && date >= 0)
        dates.push(date);
    } catch {
      // A manifest that is not JSON gives no date; validate reports it on its own.
      continue;
    }
  }
  return dates;
}
