// A host's feeds of its newest and updated packages: an Atom feed (RFC 4287) and a JSON Feed (1.1),
// each a pure function of the host and its entries, newest first. Feed readers fetch a feed from
// anywhere, so every URL in it is absolute, under the build's base URL. Every manifest string goes
// through one escaping rule per format: xmlText for Atom (which also drops what XML 1.0 cannot hold
// even as a reference), asciiJson for the JSON Feed; both write ASCII only, as the rest of the build.
import type { SitePackage, SiteHost } from "./renderPages.js";
import { markup } from "./html.js";
import { atomFeed, jsonFeed, listingPage, packagePage, PLACEHOLDER_ICON } from "./sitePaths.js";
import { categoryInWords } from "./words.js";
import { asciiJson } from "../util/asciiJson.js";
import { formatBytes } from "../util/formatBytes.js";

/** How many entries a host's feeds hold: its newest packages by feedDate. */
export const FEED_SIZE = 50;

/** What a feed shows of a package: its API object's fields and its files, when it has some. */
export type FeedPackage = Pick<
  SitePackage,
  | "internal_name"
  | "display_name"
  | "version"
  | "short_description"
  | "coder"
  | "category"
  | "release_date"
  | "updated"
  | "files"
>;

/** A package's date in its host's feeds: its last update, or its release when that is later (or it has none). */
export function feedDate(p: { release_date: number; updated: number }): number {
  return Math.max(p.release_date, p.updated);
}

/** A unix time as RFC 3339 in UTC, to the second (a manifest's timestamps are 0 to 2^31-1: always a date). */
function rfc3339(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

const XML_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/**
 * Text made safe for XML 1.0 text and quoted attribute values: `& < > " '` escaped, every character
 * beyond ASCII a numeric reference, and the characters XML 1.0 forbids even as a reference (controls
 * but tab, line feed and carriage return; lone surrogates; U+FFFE, U+FFFF) replaced by U+FFFD.
 */
export function xmlText(text: string): string {
  return text.replace(/[&<>"']|[^\x20-\x7e\t\n\r]/gu, (c) => {
    const entity = XML_ENTITIES[c];
    if (entity !== undefined) return entity;
    const code = c.codePointAt(0)!;
    const allowed = code >= 0x20 && !(code >= 0xd800 && code <= 0xdfff) && code !== 0xfffe && code !== 0xffff;
    return `&#x${(allowed ? code : 0xfffd).toString(16).toUpperCase()};`;
  });
}

/** The absolute URL of a file of the output tree; a folder's index.html as the folder, as the site links it. */
function urlOf(baseUrl: string, path: string): string {
  return `${baseUrl}/${path.endsWith("index.html") ? path.slice(0, -"index.html".length) : path}`;
}

/** The absolute URLs of one entry: its page, its icon and, with files, its archive. */
function entryUrls(baseUrl: string, host: string, p: FeedPackage) {
  const page = urlOf(baseUrl, packagePage(host, p.internal_name));
  return {
    page,
    // Names the release: a new date is a new entry for a reader, as a new version is.
    id: `${page}#${feedDate(p)}`,
    icon: urlOf(baseUrl, p.files ? p.files.iconFile : PLACEHOLDER_ICON),
    archive: p.files ? urlOf(baseUrl, p.files.archive) : undefined,
  };
}

/** An entry's title: the package's name and its version. */
function entryTitle(p: FeedPackage): string {
  return `${p.display_name} ${p.version}`;
}

/** The entry's body as HTML: its icon, what it is, and its download when it has files. */
function entryHtml(p: FeedPackage, urls: ReturnType<typeof entryUrls>): string {
  return markup`<p><img src="${urls.icon}" width="128" height="48" alt=""></p>
<p>${p.short_description}</p>
<p>Version ${p.version}, by ${p.coder} (${categoryInWords(p.category)}).${p.files && urls.archive !== undefined && markup` <a href="${urls.archive}">Download (${formatBytes(p.files.zipSize)})</a>`}</p>`
    .text;
}

/** A host's feeds: its URLs and its titles, the same in both formats. */
function feedHead(baseUrl: string, host: SiteHost) {
  return {
    title: `${host.name}: new and updated apps`,
    home: urlOf(baseUrl, listingPage({ kind: "host", host: host.id })),
    atom: urlOf(baseUrl, atomFeed(host.id)),
    json: urlOf(baseUrl, jsonFeed(host.id)),
  };
}

/** One package's entry in its host's Atom feed. */
export function renderAtomEntry(baseUrl: string, host: string, p: FeedPackage): string {
  const urls = entryUrls(baseUrl, host, p);
  const x = xmlText;
  const enclosure =
    p.files && urls.archive !== undefined
      ? `<link rel="enclosure" type="application/zip" length="${p.files.zipSize}" href="${x(urls.archive)}"/>\n`
      : "";
  return `<entry>
<id>${x(urls.id)}</id>
<title>${x(entryTitle(p))}</title>
<updated>${rfc3339(feedDate(p))}</updated>
<published>${rfc3339(p.release_date)}</published>
<author><name>${x(p.coder)}</name></author>
<link rel="alternate" type="text/html" href="${x(urls.page)}"/>
${enclosure}<category term="${x(p.category)}" label="${x(categoryInWords(p.category))}"/>
<media:thumbnail url="${x(urls.icon)}" width="128" height="48"/>
<summary>${x(p.short_description)}</summary>
<content type="html">${x(entryHtml(p, urls))}</content>
</entry>
`;
}

/** A host's Atom feed of its entries, newest first (FEED_SIZE at most); its date is its newest entry's. */
export function renderAtomFeed(baseUrl: string, host: SiteHost, entries: readonly FeedPackage[]): string {
  const head = feedHead(baseUrl, host);
  const x = xmlText;
  const updated = entries.length > 0 ? feedDate(entries[0]!) : 0;
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
<id>${x(head.home)}</id>
<title>${x(head.title)}</title>
<subtitle>${x(host.description)}</subtitle>
<updated>${rfc3339(updated)}</updated>
<author><name>${x(host.name)}</name></author>
<link rel="self" type="application/atom+xml" href="${x(head.atom)}"/>
<link rel="alternate" type="text/html" href="${x(head.home)}"/>
<link rel="alternate" type="application/feed+json" href="${x(head.json)}"/>
<generator>shopfront</generator>
${entries.map((p) => renderAtomEntry(baseUrl, host.id, p)).join("")}</feed>
`;
}

/** One package's item in its host's JSON Feed; `_shopfront` (an extension, as the spec names them) holds its version. */
export function jsonFeedItem(baseUrl: string, host: string, p: FeedPackage): Record<string, unknown> {
  const urls = entryUrls(baseUrl, host, p);
  return {
    id: urls.id,
    url: urls.page,
    title: entryTitle(p),
    content_html: entryHtml(p, urls),
    summary: p.short_description,
    image: urls.icon,
    date_published: rfc3339(p.release_date),
    date_modified: rfc3339(feedDate(p)),
    authors: [{ name: p.coder }],
    tags: [p.category],
    ...(p.files && urls.archive !== undefined
      ? { attachments: [{ url: urls.archive, mime_type: "application/zip", size_in_bytes: p.files.zipSize }] }
      : {}),
    _shopfront: { name: p.internal_name, version: p.version },
  };
}

/** A host's JSON Feed of its entries, newest first. */
export function renderJsonFeed(baseUrl: string, host: SiteHost, entries: readonly FeedPackage[]): string {
  const head = feedHead(baseUrl, host);
  return `${asciiJson({
    version: "https://jsonfeed.org/version/1.1",
    title: head.title,
    home_page_url: head.home,
    feed_url: head.json,
    description: host.description,
    authors: [{ name: host.name }],
    language: "en",
    items: entries.map((p) => jsonFeedItem(baseUrl, host.id, p)),
  })}\n`;
}
