// Over 300 lines: the pages' HTML templates, one function each, sharing the page frame and `markup`.
// The browse site's pages, each a pure function of the API's objects (a host from the host list,
// package objects as the API serves them) to the page's HTML. Every value goes through `markup`,
// which escapes it; every link is relative (linkTo) to a path from sitePaths.
import { PACKAGE_FIELDS, type Package } from "../catalogue/fields.js";
import { describeRoute, fileFor, pathFor, ROUTES } from "../routes/routeTable.js";
import { formatBytes } from "../util/formatBytes.js";
import { markup, type Html, type HtmlValue } from "./html.js";
import {
  HOME_PAGE,
  linkTo,
  listingFolder,
  listingPage,
  OPENAPI_DOCUMENT,
  packagePage,
  pageIn,
  SEARCH_SCRIPT,
  searchIndex,
  STYLESHEET,
  type Listing,
} from "./sitePaths.js";

/** A host as the API's host list describes it. */
export interface SiteHost {
  id: string;
  name: string;
  host: string;
  description: string;
}

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

function layout(path: string, title: string, crumbs: readonly Crumb[], main: Html, script = false): string {
  const link = (to: string) => linkTo(path, to);
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
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${link(STYLESHEET)}">
${script && markup`<script type="module" src="${link(SEARCH_SCRIPT)}"></script>\n`}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
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

/** The home page: the hosts, and where the API is. */
export function renderHomePage(hosts: readonly SiteHost[], counts: ReadonlyMap<string, number>): string {
  const path = HOME_PAGE;
  const link = (to: string) => linkTo(path, to);
  const routes = ROUTES.map((r) => describeRoute(r)).filter((r, i, all) => all.indexOf(r) === i);
  const rows = hosts.map(
    (h) =>
      markup`<tr><td><a href="${link(listingPage({ kind: "host", host: h.id }, 1))}" class="name">${h.name}</a></td><td data-label="Description">${h.description}</td><td data-label="Packages" class="num">${count(counts.get(h.id) ?? 0)}</td><td data-label="Domain">${h.host}</td></tr>\n`,
  );
  const main = markup`<h1>Package catalogue</h1>
<section aria-labelledby="hosts" class="list">
<h2 id="hosts">Hosts</h2>
<table>
<thead><tr><th scope="col">Host</th><th scope="col">Description</th><th scope="col" class="num">Packages</th><th scope="col">Domain</th></tr></thead>
<tbody>
${rows}</tbody>
</table>
</section>
<section aria-labelledby="api">
<h2 id="api">The API</h2>
<p>Everything on these pages is also served as JSON, described by <a href="${link(OPENAPI_DOCUMENT)}">the OpenAPI document</a>. Start from <a href="${link(fileFor("hosts"))}">the host list</a>. The routes:</p>
<ul class="routes">
${routes.map((r) => markup`<li><code>GET ${r}</code></li>\n`)}</ul>
<p>A <code>&lt;coder&gt;</code> is sent percent-encoded. Every package page links to its own API URLs.</p>
</section>
`;
  return layout(path, "Package catalogue", [{ label: "Home" }], main);
}

/** The title of a listing, given its host. */
function listingTitle(listing: Listing, host: SiteHost): string {
  switch (listing.kind) {
    case "host":
      return host.name;
    case "category":
      return `Category: ${listing.category}`;
    case "coder":
      return `Coder: ${listing.coder}`;
  }
}

/**
 * Page `n` of a listing whose packages (all of them, in name order) are `packages`, `size` per
 * page. A host's own listing (given its summary) also has its filters and the search box.
 */
export function renderListingPage(
  host: SiteHost,
  listing: Listing,
  packages: readonly Package[],
  n: number,
  size: number,
  summary?: HostSummary,
): string {
  const path = listingPage(listing, n);
  const pages = Math.max(1, Math.ceil(packages.length / size));
  const shown = packages.slice((n - 1) * size, n * size);
  const title = listingTitle(listing, host);
  // Downloads are shown only where a stats source gave some: without one every package reports 0.
  const downloads = packages.some((p) => p.downloads > 0);
  const first = (n - 1) * size + 1;
  const range =
    pages > 1 && markup`, ${count(first)}&#8211;${count(first + shown.length - 1)} on page ${n} of ${pages}`;
  const main = markup`<h1>${title}</h1>
<p class="lead">${listing.kind === "host" && `${host.description} `}${count(packages.length)} ${plural(packages.length, "package")}${range}.</p>
${summary && searchBox(path, host.id)}${summary && n === 1 && filterLinks(path, host.id, summary)}<section aria-labelledby="list" class="list" id="all">
<h2 id="list">${pages > 1 ? `Packages, page ${n} of ${pages}` : "Packages"}</h2>
<table>
<thead><tr><th scope="col">Package</th><th scope="col">Version</th><th scope="col">Category</th><th scope="col">Coder</th><th scope="col">Released</th><th scope="col" class="num">Size</th>${downloads && markup`<th scope="col" class="num">Downloads</th>`}</tr></thead>
<tbody>
${shown.map((p) => packageRow(path, host.id, p, downloads))}</tbody>
</table>
${pagination(path, listingFolder(listing), n, pages)}</section>
`;
  const crumbs: Crumb[] = [
    { label: "Home", to: HOME_PAGE },
    { label: host.name, to: listingPage({ kind: "host", host: host.id }, 1) },
  ];
  if (listing.kind !== "host") crumbs.push({ label: title, to: listingPage(listing, 1) });
  if (n > 1) crumbs.push({ label: `Page ${n}` });
  const pageTitle = `${title}${n > 1 ? ` (page ${n})` : ""}${listing.kind === "host" ? "" : ` - ${host.name}`}`;
  return layout(path, pageTitle, crumbs, main, summary !== undefined);
}

function packageRow(path: string, host: string, p: Package, downloads: boolean): Html {
  const link = (to: string) => linkTo(path, to);
  const category = link(listingPage({ kind: "category", host, category: p.category }, 1));
  const coder = link(listingPage({ kind: "coder", host, coder: p.coder }, 1));
  return markup`<tr><td><a href="${link(packagePage(host, p.internal_name))}" class="name">${p.display_name}</a> <span class="id">${p.internal_name}</span><br><span class="short">${p.short_description}</span></td><td data-label="Version">${p.version}</td><td data-label="Category"><a href="${category}">${p.category}</a></td><td data-label="Coder"><a href="${coder}">${p.coder}</a></td><td data-label="Released">${isoDate(p.release_date)}</td><td data-label="Size" class="num">${formatBytes(p.zip_size)}</td>${downloads && markup`<td data-label="Downloads" class="num">${count(p.downloads)}</td>`}</tr>\n`;
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
      markup`<li><a href="${link(listingPage({ kind: "category", host, category: c.category }, 1))}">${c.category}</a> <span class="count">${count(c.count)}</span></li>`,
  );
  const coders = summary.topCoders.map(
    (c) =>
      markup`<li><a href="${link(listingPage({ kind: "coder", host, coder: c.coder }, 1))}">${c.coder}</a> <span class="count">${count(c.count)}</span></li>`,
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

/** Previous, next, the first and last pages and those near this one. */
function pagination(path: string, folder: string, n: number, pages: number): HtmlValue {
  if (pages <= 1) return "";
  const link = (k: number) => linkTo(path, pageIn(folder, k));
  const near = [...new Set([1, n - 2, n - 1, n, n + 1, n + 2, pages])]
    .filter((k) => k >= 1 && k <= pages)
    .sort((a, b) => a - b);
  const items: Html[] = [];
  if (n > 1) items.push(markup`<li><a href="${link(n - 1)}" rel="prev">Previous</a></li>`);
  near.forEach((k, i) => {
    if (i > 0 && k > near[i - 1]! + 1) items.push(markup`<li class="gap" aria-hidden="true">&#8230;</li>`);
    items.push(
      k === n
        ? markup`<li><span aria-current="page">${k}</span></li>`
        : markup`<li><a href="${link(k)}" aria-label="Page ${k}">${k}</a></li>`,
    );
  });
  if (n < pages) items.push(markup`<li><a href="${link(n + 1)}" rel="next">Next</a></li>`);
  return markup`<nav aria-label="Pages" class="pages"><ul>${items}</ul></nav>\n`;
}

const FIELD_ORDER = (Object.keys(PACKAGE_FIELDS) as (keyof Package)[]).sort();

/** A package's page: every field of its API object, its long description as written, and its API URLs. */
export function renderPackagePage(host: string, p: Package): string {
  const path = packagePage(host, p.internal_name);
  const link = (to: string) => linkTo(path, to);
  // The name passes the name rule, so it needs no encoding in a query either.
  const v1 = pathFor("package", { host, name: p.internal_name });
  const v2 = `${pathFor("v2-package", { host, name: p.internal_name })}?package=${p.internal_name}`;
  const fields = FIELD_ORDER.map(
    (key) => markup`<tr><th scope="row"><code>${key}</code></th><td>${fieldValue(key, p[key])}</td></tr>\n`,
  );
  const main = markup`<h1>${p.display_name}</h1>
<p class="lead">${p.short_description}</p>
<dl class="facts">
<div><dt>Version</dt><dd>${p.version}</dd></div>
<div><dt>Coder</dt><dd><a href="${link(listingPage({ kind: "coder", host, coder: p.coder }, 1))}">${p.coder}</a></dd></div>
<div><dt>Category</dt><dd><a href="${link(listingPage({ kind: "category", host, category: p.category }, 1))}">${p.category}</a></dd></div>
<div><dt>Released</dt><dd>${isoDate(p.release_date)}</dd></div>
<div><dt>Download</dt><dd>${formatBytes(p.zip_size)} (${formatBytes(p.extracted)} extracted)</dd></div>
${p.downloads > 0 && markup`<div><dt>Downloads</dt><dd>${count(p.downloads)}</dd></div>\n`}</dl>
<section aria-labelledby="description">
<h2 id="description">Description</h2>
<p class="long">${p.long_description}</p>
</section>
<section aria-labelledby="fields">
<h2 id="fields">Every field</h2>
<table class="fields">
<thead><tr><th scope="col">Field</th><th scope="col">Value</th></tr></thead>
<tbody>
${fields}</tbody>
</table>
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
    { label: host, to: listingPage({ kind: "host", host }, 1) },
    { label: p.display_name },
  ];
  return layout(path, `${p.display_name} - ${host}`, crumbs, main);
}

function fieldValue(key: keyof Package, value: string | number): HtmlValue {
  if (typeof value === "number") {
    if (key === "release_date" || key === "updated")
      return markup`${value} <span class="note">(${isoDate(value)})</span>`;
    if (key === "zip_size" || key === "extracted")
      return markup`${value} <span class="note">(${formatBytes(value)})</span>`;
    return String(value);
  }
  if (value === "") return markup`<span class="note">(empty)</span>`;
  return key === "long_description" ? markup`<span class="long">${value}</span>` : value;
}

/** A unix time as its UTC date, YYYY-MM-DD; a time beyond what a date can hold, as itself. */
export function isoDate(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString().slice(0, 10);
}

/** A count with thousands separators, the same on every machine. */
function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
