// The browse site: static HTML pages over the API's own objects, so the site always shows what the
// API answers. A full build renders all of it (renderSite); a rebuild renders the pages its changed
// API files touch (siteChanges.ts) with the same functions.
import { readFileSync } from "node:fs";
import type { Package } from "../catalogue/fields.js";
import { renderHosts, type OutputFile, type PackageFilesInfo, type RenderedCatalogue } from "../render/renderApi.js";
import { packageFilePaths } from "../routes/packageFileLayout.js";
import { asciiJson } from "../util/asciiJson.js";
import { coderKey, utf8Bytes } from "../routes/filterValue.js";
import {
  HOME_NEWEST,
  renderHomePage,
  renderListingPage,
  renderPackagePage,
  type HomeHost,
  type HostSummary,
  type SiteHost,
  type SitePackage,
} from "./renderPages.js";
import {
  HOME_PAGE,
  linkTo,
  listingPage,
  packagePage,
  PAGE_SIZE,
  PLACEHOLDER_ICON,
  SEARCH_SCRIPT,
  searchIndex,
  STYLESHEET,
  type Listing,
} from "./sitePaths.js";
import { compareCodePoints } from "../util/codePoints.js";
import { compareForReading } from "./words.js";

const ASSET_DIR = new URL("../../site-assets/", import.meta.url);

let assets: OutputFile[] | undefined;

/** The stylesheet, the script and the placeholder icon, hand-written files shipped in site-assets/, read once. */
export function siteAssets(): readonly OutputFile[] {
  assets ??= [STYLESHEET, SEARCH_SCRIPT, PLACEHOLDER_ICON].map((path) => ({
    path,
    content: readFileSync(new URL(path.slice("assets/".length), ASSET_DIR), "latin1"),
  }));
  return assets;
}

/** Every file of the site, in no particular order. */
export function renderSite(catalogue: RenderedCatalogue): OutputFile[] {
  const hosts = hostsOfList(renderHosts(catalogue.hosts));
  const defaultHost = catalogue.defaultHost ?? hosts[0]?.id ?? "";
  const home: HomeHost[] = [];
  const files: OutputFile[] = [...siteAssets()];
  for (const host of hosts) {
    const rendered = catalogue.packages.get(host.id) ?? [];
    const filesOf = new Map(rendered.flatMap((p) => (p.files ? [[p.name, p.files] as const] : [])));
    const packages = sitePackages(
      host.id,
      rendered.map((p) => JSON.parse(p.json) as Package),
      { defaultHost, of: (_, name) => filesOf.get(name) },
    );
    home.push(homeHost(host, packages));
    files.push(...renderHostListing(host, packages));
    for (const [listing, members] of filterListings(host.id, packages))
      files.push(...renderListing(host, listing, members));
    for (const p of packages)
      files.push({ path: packagePage(host.id, p.internal_name), content: renderPackagePage(host, p) });
  }
  // A build with package files has the Homebrew Browser's surface (render/renderHbb.ts).
  files.push({ path: HOME_PAGE, content: renderHomePage(home, catalogue.defaultHost !== undefined) });
  return files;
}

/** Where the site learns which packages have files, and where the default host's files sit (at the root). */
export interface FilesSource {
  defaultHost: string;
  of(host: string, name: string): Pick<PackageFilesInfo, "zipSize" | "icon"> | undefined;
}

/**
 * A host's packages as the site renders them: each with the stored paths of its files when it has
 * some, sorted as people read names (see words.ts), which is the order of every list of the site.
 */
export function sitePackages(host: string, packages: readonly Package[], files: FilesSource): SitePackage[] {
  return packages
    .map((p): SitePackage => {
      const own = files.of(host, p.internal_name);
      if (!own) return p;
      const paths = packageFilePaths(host, files.defaultHost, p.internal_name, "boot.dol");
      return { ...p, files: { zipSize: own.zipSize, icon: own.icon, archive: paths.archive, iconFile: paths.icon } };
    })
    .sort(compareForReading);
}

/** A host on the home page: its count and its newest releases (by release date, then as the list reads). */
export function homeHost(host: SiteHost, packages: readonly SitePackage[]): HomeHost {
  const newest = [...packages]
    .sort((a, b) => b.release_date - a.release_date || compareForReading(a, b))
    .slice(0, HOME_NEWEST);
  return { host, count: packages.length, newest };
}

/** The hosts of the API's host list (v1/hosts), in its order. */
export function hostsOfList(json: string): SiteHost[] {
  const list = JSON.parse(json) as { repos: string[]; repositories: Record<string, Omit<SiteHost, "id">> };
  return list.repos.map((id) => ({ id, ...list.repositories[id]! }));
}

/**
 * A host's own listing (with its filters and search box), or only the pages `only` picks, and its
 * search index last.
 */
export function renderHostListing(
  host: SiteHost,
  packages: readonly SitePackage[],
  only?: (page: number) => boolean,
): OutputFile[] {
  return [
    ...renderListing(host, { kind: "host", host: host.id }, packages, summarize(packages), only),
    { path: searchIndex(host.id), content: renderSearchIndex(host.id, packages) },
  ];
}

/** How many pages a listing of `count` packages has. */
export function pageCount(count: number): number {
  return Math.max(1, Math.ceil(count / PAGE_SIZE));
}

/** Every page of a listing (or those `only` picks); `packages` are its members in reading order. */
export function renderListing(
  host: SiteHost,
  listing: Listing,
  packages: readonly SitePackage[],
  summary?: HostSummary,
  only: (page: number) => boolean = () => true,
): OutputFile[] {
  const files: OutputFile[] = [];
  for (let n = 1; n <= pageCount(packages.length); n++)
    if (only(n))
      files.push({
        path: listingPage(listing, n),
        content: renderListingPage(host, listing, packages, n, PAGE_SIZE, summary),
      });
  return files;
}

/** The category and coder listings of a host's packages, each with its members in the host's order. */
export function filterListings(host: string, packages: readonly SitePackage[]): [Listing, SitePackage[]][] {
  const byKey = new Map<string, [Listing, SitePackage[]]>();
  const add = (key: string, listing: Listing, p: SitePackage) => {
    let entry = byKey.get(key);
    if (!entry) byKey.set(key, (entry = [listing, []]));
    entry[1].push(p);
  };
  for (const p of packages) {
    add(`category\n${p.category}`, { kind: "category", host, category: p.category }, p);
    add(`coder\n${p.coder}`, { kind: "coder", host, coder: p.coder }, p);
  }
  return [...byKey.values()];
}

/** How many coders the host page names: the most prolific, so a host of thousands stays light. */
const TOP_CODERS = 20;

/** The host's categories and its most prolific coders, with their counts. */
export function summarize(packages: readonly Package[]): HostSummary {
  const categories = new Map<string, number>();
  const coders = new Map<string, number>();
  for (const p of packages) {
    categories.set(p.category, (categories.get(p.category) ?? 0) + 1);
    coders.set(p.coder, (coders.get(p.coder) ?? 0) + 1);
  }
  return {
    categories: [...categories]
      .sort(([a], [b]) => compareCodePoints(a, b))
      .map(([category, count]) => ({ category, count })),
    topCoders: [...coders]
      .sort(([a, m], [b, n]) => n - m || compareCodePoints(a, b))
      .slice(0, TOP_CODERS)
      .map(([coder, count]) => ({ coder, count })),
    coders: coders.size,
  };
}

/**
 * The host's search index for assets/search.js: each package as [name, display name, coder index,
 * category index, short description], and, when it has files, its stored icon (relative to the
 * index, as the lists link it); with the coders (and the keys of their pages) and categories listed
 * once. A package without files shows the site's placeholder, which the script finds beside itself.
 */
export function renderSearchIndex(host: string, packages: readonly SitePackage[]): string {
  const index = searchIndex(host);
  const categories = [...new Set(packages.map((p) => p.category))].sort();
  const coders = [...new Set(packages.map((p) => p.coder))].sort();
  const categoryAt = new Map(categories.map((c, i) => [c, i]));
  const coderAt = new Map(coders.map((c, i) => [c, i]));
  return asciiJson({
    categories,
    coders: coders.map((c) => [c, coderKey(utf8Bytes(c))]),
    packages: packages.map((p) => [
      p.internal_name,
      p.display_name,
      coderAt.get(p.coder),
      categoryAt.get(p.category),
      p.short_description,
      ...(p.files ? [linkTo(index, p.files.iconFile)] : []),
    ]),
  });
}
