// Where each page of the browse site lives in the output tree, and the relative links between them.
// A path is built only from host ids, package names and categories (which pass the name rule,
// checked here again) and from coders' keys (hex, as the API's coder folders): manifest text never
// names a file or a URL.
import { assertValidName } from "../catalogue/names.js";
import { coderKey, utf8Bytes } from "../routes/filterValue.js";
import { SITE_FEEDS } from "../routes/routeTable.js";

/**
 * Packages per page of a list, on average: a page ends after a package whose name hashes to 0 modulo
 * it, once it holds half as many, or at twice as many (see chunkEnds), so adding or removing a
 * package moves the boundaries of its page only. A host of 10,000 packages is about 80 light pages.
 */
export const PAGE_SIZE = 100;

export const HOME_PAGE = "index.html";
export const STYLESHEET = "assets/site.css";
export const SEARCH_SCRIPT = "assets/search.js";
/** The icon shown for a package that has no files (a package with files links its stored icon). */
export const PLACEHOLDER_ICON = "assets/placeholder.svg";
export const OPENAPI_DOCUMENT = "openapi.json";

/** A list of packages that the site shows in pages: a host's, a category's or a coder's. */
export type Listing =
  | { kind: "host"; host: string }
  | { kind: "category"; host: string; category: string }
  | { kind: "coder"; host: string; coder: string };

/** The folder of a host's pages. */
export function hostFolder(host: string): string {
  return `browse/${assertValidName(host, "host")}`;
}

/** The folder of a listing's first page; each later page is in `page/{name}/` under it, named by its first package. */
export function listingFolder(listing: Listing): string {
  const host = hostFolder(listing.host);
  switch (listing.kind) {
    case "host":
      return host;
    case "category":
      return `${host}/category/${assertValidName(listing.category, "category")}`;
    case "coder":
      return `${host}/coder/${coderKey(utf8Bytes(listing.coder))}`;
  }
}

/** The file of a listing's first page, or of its page whose first package is `first`. */
export function listingPage(listing: Listing, first?: string): string {
  return pageIn(listingFolder(listing), first);
}

/** The file of the first page of the listing whose folder is `folder`, or of its page starting at `first`. */
export function pageIn(folder: string, first?: string): string {
  return first === undefined
    ? `${folder}/index.html`
    : `${folder}/page/${assertValidName(first, "package")}/index.html`;
}

export function packagePage(host: string, name: string): string {
  return `${hostFolder(host)}/package/${assertValidName(name, "package")}/index.html`;
}

/** The host's search manifest: its categories, coders and shards. */
export function searchIndex(host: string): string {
  return `${hostFolder(host)}/search.json`;
}

/** A shard of the host's search index, named by the hash of its bytes (so a cache may keep it forever). */
export function searchShard(host: string, hash: string): string {
  return `${hostFolder(host)}/search/${hash}.json`;
}

/** The host's Atom feed of its newest and updated packages (site/renderFeeds.ts). */
export function atomFeed(host: string): string {
  return SITE_FEEDS.atom.replace("{host}", assertValidName(host, "host"));
}

/** The host's JSON Feed of the same entries: an extension of its own, which the route table types application/feed+json. */
export function jsonFeed(host: string): string {
  return SITE_FEEDS.json.replace("{host}", assertValidName(host, "host"));
}

/**
 * The file every link of a host's listing pages is relative to (their `<base>`): a package's row is
 * then the same bytes on every page of the host, its own list's, its category's and its coder's.
 */
export function listingBase(host: string): string {
  return `${hostFolder(host)}/index.html`;
}

/**
 * The relative URL from the page `from` to the file `to` (both paths of the output tree): a folder's
 * index.html is linked as the folder (`../snake/`), so URLs stay directory-style and the site works
 * under any sub-path.
 */
export function linkTo(from: string, to: string): string {
  const target = to === "index.html" || to.endsWith("/index.html") ? to.slice(0, -"index.html".length) : to;
  const fromDir = from.slice(0, from.lastIndexOf("/") + 1);
  // The folders both share, then one ".." for each folder of `from` beyond them. (Written for speed:
  // a build makes several links per package on every list page.)
  let shared = 0;
  for (let i = 0; i < fromDir.length && i < target.length && fromDir[i] === target[i]; i++)
    if (fromDir[i] === "/") shared = i + 1;
  let up = 0;
  for (let i = shared; i < fromDir.length; i++) if (fromDir[i] === "/") up++;
  const link = "../".repeat(up) + target.slice(shared);
  return link === "" ? "./" : link;
}
