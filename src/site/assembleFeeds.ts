// Each host's feeds, assembled from the site index (siteIndex.ts: every package's release and update
// dates) for a full build and a rebuild alike. A host's newest FEED_SIZE packages are picked from the
// index's columns alone; a rebuild renders a host's feeds again only when that pick changed or one of
// its packages was rendered anew, and then reads the picked packages' manifests again (their API
// objects, through `packageOf`). The feeds say nothing else of the host: its name and description
// change only in a full build.
import { atomFeed, jsonFeed } from "./sitePaths.js";
import { feedDate, FEED_SIZE, renderAtomFeed, renderJsonFeed, type FeedPackage } from "./renderFeeds.js";
import type { SiteHost } from "./renderPages.js";
import { RELEASE, SITE_COLUMNS, UPDATED, type SiteHostIndex, type SiteIndex } from "./siteIndex.js";
import type { LiveSite } from "./assembleSite.js";

export interface FeedsInput {
  hosts: readonly SiteHost[];
  /** The site's index as this build leaves it. */
  index: SiteIndex;
  /** The origin the build is served from, without a trailing slash: every URL of a feed is absolute. */
  baseUrl: string;
  /**
   * A picked package's API object: rendered again from its manifest, for the host's pass rendered
   * each package as it went by and kept none.
   */
  packageOf: (host: string, name: string) => FeedPackage;
}

/** The last build's index and live output, in a rebuild, and which packages it rendered anew. */
export interface PreviousFeeds {
  index: SiteIndex;
  live: LiveSite;
  fresh(host: string, name: string): boolean;
}

/** The feeds' writes (content; a feed is never removed while its host is there) and how many files they add. */
export interface FeedsOutput {
  writes: Map<string, string>;
  added: number;
}

/**
 * The names of a host's newest packages, newest first (by feedDate, then as its list reads: the
 * index is in reading order), FEED_SIZE at most.
 */
export function newestOf(host: SiteHostIndex | undefined): string[] {
  if (!host) return [];
  // Kept newest first; a later package goes before an earlier one only when it is newer.
  const dates: number[] = [];
  const picked: number[] = [];
  for (let i = 0; i < host.names.length; i++) {
    const at = i * SITE_COLUMNS;
    const date = feedDate({ release_date: host.columns[at + RELEASE]!, updated: host.columns[at + UPDATED]! });
    let k = picked.length;
    while (k > 0 && dates[k - 1]! < date) k--;
    if (k >= FEED_SIZE) continue;
    picked.splice(k, 0, i);
    dates.splice(k, 0, date);
    if (picked.length > FEED_SIZE) {
      picked.pop();
      dates.pop();
    }
  }
  return picked.map((i) => host.names[i]!);
}

/** Every host's feeds in a full build; in a rebuild (`previous`), those of the hosts whose newest packages moved. */
export function assembleFeeds(input: FeedsInput, previous?: PreviousFeeds): FeedsOutput {
  const writes = new Map<string, string>();
  let added = 0;
  const put = (path: string, content: string) => {
    const before = previous?.live.bytes(path);
    if (before && before.length === content.length && Buffer.from(content, "latin1").equals(before)) return;
    writes.set(path, content);
    if (!before) added++;
  };
  for (const host of input.hosts) {
    const now = input.index.packages[host.id];
    const old = previous?.index.packages[host.id];
    if (previous && now === old) continue;
    const newest = newestOf(now);
    if (previous && old) {
      const before = newestOf(old);
      const same = before.length === newest.length && before.every((name, i) => name === newest[i]);
      if (same && !newest.some((name) => previous.fresh(host.id, name))) continue;
    }
    const entries = newest.map((name) => input.packageOf(host.id, name));
    put(atomFeed(host.id), renderAtomFeed(input.baseUrl, host, entries));
    put(jsonFeed(host.id), renderJsonFeed(input.baseUrl, host, entries));
  }
  return { writes, added };
}
