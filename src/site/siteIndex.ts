// What a build remembers of the browse site, so that the next one rewrites only the pages an edit
// touches without reading the catalogue back from its output: per host, its packages in reading
// order with what the site needs of each (display name, category and coder interned, release and
// update dates, which pick its feeds' newest entries) and the byte lengths of its row (renderCard)
// and of its search record, whose offsets in the live pages and shards are prefix sums. 48 bytes a
// package beside its names.
import type { SiteHost } from "./renderPages.js";
import { PAGE_SIZE } from "./sitePaths.js";

/** Numbers kept per package, in reading order. */
export const SITE_COLUMNS = 6;
export const [CATEGORY, CODER, RELEASE, CARD, RECORD, UPDATED] = [0, 1, 2, 3, 4, 5] as const;

/** A host's packages as its site was built. */
export interface SiteHostIndex {
  /** Internal names, in reading order (words.ts's compareForReading). */
  names: string[];
  displays: string[];
  /** Each category and coder once; a package's columns index it. */
  values: string[];
  columns: Float64Array;
  /** The hash naming each page's search shard, in page order. */
  shards: string[];
}

export interface SiteIndex {
  hosts: SiteHost[];
  packages: Record<string, SiteHostIndex>;
}

/** The numbers of a host's index, and how its header is written in the state. */
export interface SiteHostHeader {
  host: string;
  names: string[];
  displays: string[];
  values: string[];
  shards: string[];
}

export function siteHeader(index: SiteIndex): { hosts: SiteHost[]; packages: SiteHostHeader[] } {
  return {
    hosts: index.hosts,
    packages: index.hosts.map(({ id }) => {
      const { names, displays, values, shards } = index.packages[id]!;
      return { host: id, names, displays, values, shards };
    }),
  };
}

/** The site's columns, host after host, in the order of siteHeader. */
export function siteColumns(index: SiteIndex): Float64Array[] {
  return index.hosts.map(({ id }) => index.packages[id]!.columns);
}

/** The index again from its header and the state's bytes its columns start at; undefined when they are short. */
export function parseSiteIndex(
  header: ReturnType<typeof siteHeader>,
  source: { read(into: Uint8Array, at: number): boolean },
  at: number,
): { index: SiteIndex; at: number } | undefined {
  const packages: Record<string, SiteHostIndex> = {};
  for (const { host, names, displays, values, shards } of header.packages) {
    const columns = new Float64Array(names.length * SITE_COLUMNS);
    if (!source.read(new Uint8Array(columns.buffer), at)) return undefined;
    packages[host] = { names, displays, values, columns, shards };
    at += columns.byteLength;
  }
  return { index: { hosts: header.hosts, packages }, at };
}

/** FNV-1a of a name's UTF-16 code units: fixed, so every machine cuts the same pages. */
function nameHash(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * Where the pages of a list of `count` packages end (exclusive), given each one's name: a page
 * ends after a package whose name hashes to 0 modulo PAGE_SIZE once it holds half a page, or at two
 * pages. The boundaries depend on the names around them only, so adding or removing a package
 * changes its own page (and, rarely, the next ones up to a boundary of the names) and no other.
 */
export function pageEnds(count: number, nameAt: (i: number) => string, size = PAGE_SIZE): number[] {
  const ends: number[] = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    const length = i - start + 1;
    if (length >= size * 2 || (length >= size / 2 && nameHash(nameAt(i)) % size === 0)) {
      ends.push(i + 1);
      start = i + 1;
    }
  }
  if (start < count || count === 0) ends.push(count);
  return ends;
}
