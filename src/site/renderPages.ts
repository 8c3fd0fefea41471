// Over 300 lines: the pages' HTML templates, one function each, sharing the page frame and `markup`.
// The browse site's pages, each a pure function of the API's objects (a host from the host list,
// package objects as the API serves them) to the page's HTML. Every value goes through `markup`,
// which escapes it; every link is relative (linkTo) to a path from sitePaths.
import type { Package } from "../catalogue/fields.js";
import type { PackageFilesInfo } from "../render/renderApi.js";
import { fileFor, pathFor } from "../routes/routeTable.js";
import { formatBytes } from "../util/formatBytes.js";
import { Html, markup, type HtmlValue } from "./html.js";
import { HBB_HOST_FILES, HBB_REPO_LIST } from "../routes/hbbRoutes.js";
import {
  atomFeed,
  HOME_PAGE,
  jsonFeed,
  linkTo,
  listingBase,
  listingFolder,
  listingPage,
  OPENAPI_DOCUMENT,
  packagePage,
  pageIn,
  PLACEHOLDER_ICON,
  SEARCH_SCRIPT,
  searchIndex,
  STYLESHEET,
  type Listing,
} from "./sitePaths.js";
import { categoryInWords, controllersInWords, dateInWords, isoDate } from "./words.js";
import { checkMemory } from "../util/memory.js";

/** A host as the API's host list describes it. */
export interface SiteHost {
  id: string;
  name: string;
  host: string;
  description: string;
}

/** A package's files as the site links them: the stored archive and icon, as paths of the output tree. */
export interface SiteFiles extends Pick<PackageFilesInfo, "zipSize" | "icon"> {
  archive: string;
  iconFile: string;
}

/** A package as the site renders it: its API object, and its files when it has them. */
export type SitePackage = Package & { files?: SiteFiles };

/** What a host's own list pages show of the whole host: its filters. */
export interface HostSummary {
  categories: readonly { category: string; count: number }[];
  /** The coders with the most packages, most first. */
  topCoders: readonly { coder: string; count: number }[];
  coders: number;
}

interface Crumb {
  label: string;
  to?: string;
}

/**
 * The page frame. With `base` (a file of the tree) the page's links are written relative to that file
 * and a `<base>` element makes the browser read them so; the skip link then names the page itself.
 * Its head announces the feeds of `feeds`, the hosts the page shows packages of, on a page without
 * a `<base>` of another file: a feed reader that finds the link reads it against the page's own
 * address (many ignore `<base>`), and a relative link cannot resolve both ways. A page with such a
 * `<base>` (a category's, a coder's, a later page of a list) links to its host's page, which
 * announces them.
 */
/** A page as layout wraps it: its title, breadcrumbs, main part, the hosts whose feeds it announces, and whether it runs the search script. */
interface PageParts {
  title: string;
  crumbs: readonly Crumb[];
  main: Html;
  feeds: readonly SiteHost[];
  script?: boolean;
}

function layout(path: string, parts: PageParts, base = path): string {
  const { title, crumbs, main, feeds, script = false } = parts;
  // Every page passes here: the site is what grows most with the catalogue.
  checkMemory("rendering the browse site");
  const link = (to: string) => linkTo(base, to);
  const trail = crumbs.map((c, i) =>
    c.to === undefined || i === crumbs.length - 1
      ? markup`<li><span aria-current="page">${c.label}</span></li>`
      : markup`<li><a href="${link(c.to)}">${c.label}</a></li>`,
  );
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${base !== path && markup`<base href="${linkTo(path, base)}">\n`}<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${link(STYLESHEET)}">
${base === path && feeds.map((host) => feedLinks(link, host))}${script && markup`<script type="module" src="${link(SEARCH_SCRIPT)}"></script>\n`}</head>
<body>
<a class="skip" href="${base === path ? "" : link(path)}#main">Skip to content</a>
<header>
<nav aria-label="Breadcrumb"><ol>${trail}</ol></nav>
</header>
<main id="main">
${main}</main>
<footer><p>Built by shopfront. The same data as JSON: <a href="${link(OPENAPI_DOCUMENT)}">the API's OpenAPI document</a>.</p></footer>
</body>
</html>
`.text;
}

/** The head's links to a host's Atom feed and JSON Feed. */
function feedLinks(link: (to: string) => string, host: SiteHost): Html {
  const title = `${host.name}: new and updated apps`;
  return markup`<link rel="alternate" type="application/atom+xml" href="${link(atomFeed(host.id))}" title="${title} (Atom)">
<link rel="alternate" type="application/feed+json" href="${link(jsonFeed(host.id))}" title="${title} (JSON Feed)">
`;
}

/** How many of each host's newest packages the home page shows. */
export const HOME_NEWEST = 8;

/** What the home page shows of a package: what the build's index keeps of every package. */
export type NewestPackage = Pick<
  SitePackage,
  "internal_name" | "display_name" | "category" | "coder" | "release_date" | "files"
>;

/** A host on the home page: its package count and its newest releases (newest first). */
export interface HomeHost {
  host: SiteHost;
  count: number;
  newest: readonly NewestPackage[];
}

/**
 * The home page: each host's newest apps and a link to all of them, then where the API is, and,
 * with `hbb` (a build with package files), where the Wii's Homebrew Browser reads its list.
 */
export function renderHomePage(hosts: readonly HomeHost[], hbb = false): string {
  const path = HOME_PAGE;
  const link = (to: string) => linkTo(path, to);
  const sections = hosts.map(({ host, count: n, newest }) => {
    const all = link(listingPage({ kind: "host", host: host.id }));
    return markup`<section aria-labelledby="host-${host.id}" class="host">
<div class="host-head"><h2 id="host-${host.id}"><a href="${all}">${host.name}</a></h2>
<p>${host.description}</p></div>
${
  newest.length > 0
    ? markup`<h3>Newest releases</h3>
<ul class="apps">
${newest.map((p) => newestItem(path, host.id, p))}</ul>
`
    : markup`<p>No packages yet.</p>
`
}<p class="more"><a href="${all}">All ${count(n)} ${plural(n, "package")} of ${host.name}</a></p>
</section>
`;
  });
  const main = markup`<h1>Homebrew apps</h1>
${sections}<section aria-labelledby="api" class="api">
<h2 id="api">The API</h2>
<p>Every package here is also served as JSON for apps and scripts: see <a href="${link(OPENAPI_DOCUMENT)}">the API's OpenAPI document</a>, or start from <a href="${link(fileFor("hosts"))}">the host list</a>.</p>
${
  hbb &&
  markup`<p>The Wii's Homebrew Browser reads <a href="${link(HBB_HOST_FILES.list)}">the list of apps</a> and <a href="${link(HBB_REPO_LIST)}">the repository list</a>, over plain HTTP.</p>
`
}</section>
`;
  return layout(path, {
    title: "Homebrew apps",
    crumbs: [{ label: "Home" }],
    main,
    feeds: hosts.map(({ host }) => host),
  });
}

/** The title of a listing, given its host. */
function listingTitle(listing: Listing, host: SiteHost): string {
  switch (listing.kind) {
    case "host":
      return host.name;
    case "category":
      return categoryInWords(listing.category);
    case "coder":
      return `Coder: ${listing.coder}`;
  }
}

/**
 * One page of a listing: its packages' rows as renderCard made them, and the pages before and after
 * it. Only the first page counts the listing's packages (and, on a host's, has its filters): every
 * other page depends on its own packages and its neighbours' first names only.
 */
export interface ListingPage {
  /** The first package of the page, undefined for the listing's first page. */
  first: string | undefined;
  /** The display names of its first and last packages. */
  from: string;
  to: string;
  /** The rows, joined. */
  cards: string;
  /** The first packages of the pages before and after it (null: the listing's first page). */
  previous?: string | null;
  next?: string;
  /** On the first page: how many packages the listing has, and a host's filters. */
  count?: number;
  summary?: HostSummary;
}

/**
 * A page of a listing. Every link is relative to the host's folder (listingBase, through `<base>`),
 * so a row is the same bytes on every page of every listing of the host.
 */
export function renderListingPage(host: SiteHost, listing: Listing, page: ListingPage): string {
  const path = listingPage(listing, page.first);
  const base = listingBase(host.id);
  const link = (to: string) => linkTo(base, to);
  const title = listingTitle(listing, host);
  const folder = listingFolder(listing);
  const many = page.first !== undefined || page.next !== undefined;
  const lead =
    page.count !== undefined
      ? markup`${listing.kind === "host" && `${host.description} `}${count(page.count)} ${plural(page.count, "package")}.`
      : markup`From ${page.from} to ${page.to}.`;
  const main = markup`<h1>${title}</h1>
<p class="lead">${lead}</p>
${page.summary && searchBox(base, host.id)}${page.summary && filterLinks(base, host.id, page.summary)}<section aria-labelledby="list" class="list" id="all">
<h2 id="list">${many ? markup`Packages from ${page.from} to ${page.to}` : "Packages"}</h2>
<ul class="apps">
${new Html(page.cards)}</ul>
${many && pagination(link, folder, page)}</section>
`;
  const crumbs: Crumb[] = [
    { label: "Home", to: HOME_PAGE },
    { label: host.name, to: listingPage({ kind: "host", host: host.id }) },
  ];
  if (listing.kind !== "host") crumbs.push({ label: title, to: listingPage(listing) });
  if (page.first !== undefined) crumbs.push({ label: `From ${page.from}` });
  const pageTitle = `${title}${page.first !== undefined ? ` (from ${page.from})` : ""}${listing.kind === "host" ? "" : ` - ${host.name}`}`;
  return layout(path, { title: pageTitle, crumbs, main, feeds: [host], script: page.summary !== undefined }, base);
}

/**
 * A package's row in every list of its host: its icon, name, short description and what one checks
 * before a download (its downloads when it has some). Relative to listingBase: the same bytes on
 * every page, which lets a rebuild copy it from the live page instead of rendering it again.
 */
export function renderCard(host: string, p: SitePackage): string {
  const path = listingBase(host);
  const link = (to: string) => linkTo(path, to);
  const category = link(listingPage({ kind: "category", host, category: p.category }));
  const coder = link(listingPage({ kind: "coder", host, coder: p.coder }));
  return markup`<li class="app">${icon(path, p)}<div class="about"><a href="${link(packagePage(host, p.internal_name))}" class="name">${p.display_name}</a> <span class="version">${p.version}</span>
<p class="short">${p.short_description}</p>
<p class="meta"><a href="${category}">${categoryInWords(p.category)}</a> &#183; by <a href="${coder}">${p.coder}</a>${p.release_date > 0 && markup` &#183; ${dateTag(p.release_date)}`}${p.files && markup` &#183; ${formatBytes(p.files.zipSize)}`}${p.downloads > 0 && markup` &#183; ${count(p.downloads)} ${plural(p.downloads, "download")}`}</p></div></li>\n`
    .text;
}

/** A package among the newest on the home page: its icon, name, category, coder and release date. */
function newestItem(path: string, host: string, p: NewestPackage): Html {
  const link = (to: string) => linkTo(path, to);
  const category = link(listingPage({ kind: "category", host, category: p.category }));
  const coder = link(listingPage({ kind: "coder", host, coder: p.coder }));
  return markup`<li class="app">${icon(path, p)}<div class="about"><a href="${link(packagePage(host, p.internal_name))}" class="name">${p.display_name}</a>
<p class="meta"><a href="${category}">${categoryInWords(p.category)}</a> &#183; by <a href="${coder}">${p.coder}</a>${p.release_date > 0 && markup` &#183; ${dateTag(p.release_date)}`}${p.files && markup` &#183; ${formatBytes(p.files.zipSize)}`}</p></div></li>\n`;
}

/** A package's icon, 128x48: its stored icon when it has files, else the site's placeholder. Decorative: its name is beside it. */
function icon(path: string, p: Pick<SitePackage, "files">): Html {
  const src = linkTo(path, p.files ? p.files.iconFile : PLACEHOLDER_ICON);
  return markup`<img class="icon" src="${src}" width="128" height="48" alt="" loading="lazy">`;
}

/** A date in words with its machine-readable form; a time no date holds, as itself. */
function dateTag(seconds: number): HtmlValue {
  const iso = isoDate(seconds);
  return iso === undefined ? String(seconds) : markup`<time datetime="${iso}">${dateInWords(seconds)}</time>`;
}

/** The search box, hidden until assets/search.js brings it to life (without the script it could do nothing). */
function searchBox(path: string, host: string): Html {
  return markup`<form class="search" role="search" hidden data-index="${linkTo(path, searchIndex(host))}">
<div class="field"><label for="q">Search packages</label>
<input type="search" id="q" name="q" autocomplete="off" spellcheck="false" aria-describedby="search-status"></div>
<div class="field"><label for="category">Category</label>
<select id="category" name="category"><option value="">Any</option></select></div>
<div class="field"><label for="coder">Coder</label>
<select id="coder" name="coder"><option value="">Any</option></select></div>
<p id="search-status" class="status" role="status" aria-live="polite"></p>
</form>
<section aria-labelledby="results" class="results" id="results-section" hidden>
<h2 id="results">Matching packages</h2>
<ul id="results-list" class="results-list"></ul>
</section>
`;
}

/**
 * The host's categories and most prolific coders as links, on the first page of its list only: the
 * other pages then depend only on their own packages, and a rebuild rewrites only the pages it must.
 */
function filterLinks(path: string, host: string, summary: HostSummary): Html {
  const link = (to: string) => linkTo(path, to);
  const categories = summary.categories.map(
    (c) =>
      markup`<li><a href="${link(listingPage({ kind: "category", host, category: c.category }))}">${categoryInWords(c.category)}</a> <span class="count">${count(c.count)}</span></li>`,
  );
  const coders = summary.topCoders.map(
    (c) =>
      markup`<li><a href="${link(listingPage({ kind: "coder", host, coder: c.coder }))}">${c.coder}</a> <span class="count">${count(c.count)}</span></li>`,
  );
  const codersTitle =
    summary.coders > summary.topCoders.length
      ? `Coders with the most packages (${count(summary.topCoders.length)} of ${count(summary.coders)})`
      : "Coders";
  return markup`<nav aria-labelledby="categories" class="filters">
<h2 id="categories">Categories</h2>
<ul>${categories}</ul>
<h2 id="coders">${codersTitle}</h2>
<ul>${coders}</ul>
</nav>
`;
}

/** The first page (from a later one), the page before and the page after. */
function pagination(link: (to: string) => string, folder: string, page: ListingPage): Html {
  const items: Html[] = [];
  if (page.first !== undefined) items.push(markup`<li><a href="${link(pageIn(folder))}">First page</a></li>`);
  if (page.previous !== undefined && page.previous !== null)
    items.push(markup`<li><a href="${link(pageIn(folder, page.previous))}" rel="prev">Previous</a></li>`);
  else if (page.previous === null)
    items.push(markup`<li><a href="${link(pageIn(folder))}" rel="prev">Previous</a></li>`);
  if (page.next !== undefined)
    items.push(markup`<li><a href="${link(pageIn(folder, page.next))}" rel="next">Next</a></li>`);
  return markup`<nav aria-label="Pages" class="pages"><ul>${items}</ul></nav>\n`;
}

/** A package's page: its icon, its download, its details in words, its long description as written, and its API URLs. */
export function renderPackagePage(host: SiteHost, p: SitePackage): string {
  const path = packagePage(host.id, p.internal_name);
  const link = (to: string) => linkTo(path, to);
  // The name passes the name rule, so it needs no encoding in a query either.
  const v1 = pathFor("package", { host: host.id, name: p.internal_name });
  const v2 = `${pathFor("v2-package", { host: host.id, name: p.internal_name })}?package=${p.internal_name}`;
  const controllers = controllersInWords(p.controllers);
  const detail = (term: string, value: HtmlValue) => markup`<div><dt>${term}</dt><dd>${value}</dd></div>\n`;
  const main = markup`<div class="package-head">${markup`<img class="icon" src="${link(p.files ? p.files.iconFile : PLACEHOLDER_ICON)}" width="128" height="48" alt="">`}
<div><h1>${p.display_name}</h1>
<p class="lead">${p.short_description}</p>
<p class="by">by <a href="${link(listingPage({ kind: "coder", host: host.id, coder: p.coder }))}">${p.coder}</a></p>
${p.files && markup`<p><a class="button" href="${link(p.files.archive)}" download>Download &#183; ${formatBytes(p.files.zipSize)}</a></p>\n`}</div></div>
<section aria-labelledby="description">
<h2 id="description">Description</h2>
<p class="long">${p.long_description}</p>
</section>
<section aria-labelledby="details">
<h2 id="details">Details</h2>
<dl class="details">
${detail("Version", p.version)}${detail("Category", markup`<a href="${link(listingPage({ kind: "category", host: host.id, category: p.category }))}">${categoryInWords(p.category)}</a>`)}${detail("Released", p.release_date > 0 ? dateTag(p.release_date) : "Unknown")}${p.updated > 0 && detail("Updated", dateTag(p.updated))}${detail("Controllers", controllers.length > 0 ? controllers.join(", ") : "None needed")}${detail("Size", `${formatBytes(p.files?.zipSize ?? p.zip_size)} download, ${formatBytes(p.extracted)} on the SD card`)}${p.contributors !== "" && detail("Contributors", p.contributors)}${p.downloads > 0 && detail("Downloads", count(p.downloads))}${p.rating !== "" && detail("Rating", p.rating)}${detail("Program", p.package_type === "" ? "Unknown" : `boot.${p.package_type}`)}${detail("Package name", markup`<code>${p.internal_name}</code>`)}</dl>
</section>
<section aria-labelledby="api">
<h2 id="api">In the API</h2>
<ul>
<li><a href="${link(v1.slice(1))}"><code>GET ${v1}</code></a></li>
<li><a href="${link(v2.slice(1))}"><code>GET ${v2}</code></a></li>
</ul>
</section>
`;
  const crumbs: Crumb[] = [
    { label: "Home", to: HOME_PAGE },
    { label: host.name, to: listingPage({ kind: "host", host: host.id }) },
    { label: p.display_name },
  ];
  return layout(path, { title: `${p.display_name} - ${host.name}`, crumbs, main, feeds: [host] });
}

/** A count with thousands separators, the same on every machine. */
function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
