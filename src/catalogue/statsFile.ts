// The stats source: catalogue/stats/<host>.json, one file per host, holding the downloads and rating
// of its packages (schemas/stats.schema.json) and the access logs counted into it. Manifests are
// reviewed by hand and counts change daily, so the numbers live here and never in a manifest.
import { NO_STATS, type PackageStats } from "./fields.js";
import { compareCodePoints } from "../util/codePoints.js";

/** The catalogue's folder of stats files. */
export const STATS_FOLDER = "stats";

/** One access log counted into a host's stats. */
export interface CountedLog {
  /** SHA-256 of the log's decompressed content, lowercase hex. */
  sha256: string;
  /** The length of that content. */
  bytes: number;
  /** Its file name when counted, for people. */
  file: string;
  /** RFC 3339 UTC. */
  countedAt: string;
  /** Downloads it added. */
  downloads: number;
}

/** A stats file as its schema allows it: fields of an entry may be left out. */
export interface StatsFile {
  /** The schema an editor checks the file against; kept when the file is rewritten. */
  $schema?: string;
  packages: Record<string, Partial<PackageStats>>;
  counted?: CountedLog[];
}

/** A host's stats file, relative to the catalogue folder. */
export function statsFileOf(host: string): string {
  return `${STATS_FOLDER}/${host}.json`;
}

/** A host's stats by package name, read from a valid stats file; held in a Map so no name can reach a prototype. */
export type HostStats = ReadonlyMap<string, PackageStats>;

/** The entries of a valid stats file, with their defaults filled in. */
export function hostStatsOf(file: StatsFile): HostStats {
  return new Map(
    Object.entries(file.packages).map(([name, entry]) => [
      name,
      { downloads: entry.downloads ?? NO_STATS.downloads, rating: entry.rating ?? NO_STATS.rating },
    ]),
  );
}

export function sameStats(a: PackageStats, b: PackageStats): boolean {
  return a.downloads === b.downloads && a.rating === b.rating;
}

/** A flat object on one line, spaced as Prettier would: `{ "downloads": 12 }`; undefined fields left out. */
function oneLine(fields: Record<string, string | number | undefined>): string {
  const set = Object.entries(fields).filter(([, value]) => value !== undefined);
  return set.length === 0 ? "{}" : `{ ${set.map(([key, value]) => `"${key}": ${JSON.stringify(value)}`).join(", ")} }`;
}


/**
 * A stats file's text: packages sorted by name, one per line, then the counted logs one per line,
 * so a day's count is a readable diff in git.
 */
export function serializeStats(file: StatsFile): string {
  const entries = Object.keys(file.packages)
    .sort(compareCodePoints)
    .map((name) => {
      const { downloads, rating } = file.packages[name]!;
      return `${JSON.stringify(name)}: ${oneLine({ downloads, rating })}`;
    });
  const counted = (file.counted ?? []).map((log) => oneLine({ ...log }));
  const block = (open: string, items: string[], close: string) =>
    items.length === 0 ? `${open}${close}` : `${open}\n    ${items.join(",\n    ")}\n  ${close}`;
  const fields = [`"packages": ${block("{", entries, "}")}`];
  if (file.$schema !== undefined) fields.unshift(`"$schema": ${JSON.stringify(file.$schema)}`);
  if (counted.length > 0) fields.push(`"counted": ${block("[", counted, "]")}`);
  return `{\n  ${fields.join(",\n  ")}\n}\n`;
}
