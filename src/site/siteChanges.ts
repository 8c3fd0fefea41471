// The browse site in a rebuild: from the API files a rebuild writes, the site pages they touch,
// rendered by the same functions as a full build, so the output stays byte for byte a full build's.
// Pure: it sees the previous output only through the PreviousFiles it is given, and returns the
// pages' writes for the rebuild's plan (rebuild/planSite.ts) to merge.
// A package written or removed rewrites or removes its page and the pages of its category and coder
// (before and after); a host list written rewrites the host's own listing and search index; the host
// list (v1/hosts) or any host's list rewrites the home page (which shows every host's newest packages),
// and the host list rewrites every page that names a host. Only pages whose bytes differ are
// written; pages past a listing's new end are removed.
import type { Package } from "../catalogue/fields.js";
import { contentText, type OutputFile } from "../render/renderApi.js";
import { fileFor } from "../routes/routeTable.js";
import { renderHomePage, renderPackagePage, type HomeHost, type SiteHost, type SitePackage } from "./renderPages.js";
import {
  filterListings,
  homeHost,
  hostsOfList,
  pageCount,
  renderHostListing,
  renderListing,
  sitePackages,
  type FilesSource,
} from "./renderSite.js";
import { HOME_PAGE, listingFolder, packagePage, pageIn, PAGE_SIZE, type Listing } from "./sitePaths.js";

/** The previous build's output, as far as the site's changes read it. */
export interface PreviousFiles {
  /** A file's bytes as latin1 text (outputs are ASCII), or undefined when it cannot be read. */
  text(path: string): string | undefined;
  exists(path: string): boolean;
}

export interface PackageRef {
  host: string;
  name: string;
}

/** What the rebuild changes in the API, which the site follows. */
export interface ApiChanges {
  /** API path -> new content, or null where the file is deleted. */
  writes: ReadonlyMap<string, OutputFile["content"] | null>;
  removed: readonly PackageRef[];
  changed: readonly PackageRef[];
  added: readonly PackageRef[];
  /** A host's package count once the changes are made. */
  packageCount(host: string): number;
  /** Which packages have files (after the changes); none when left out, the first host as the default. */
  files?: FilesSource;
}

/** The site's pages to write (content) or remove (null), and how many files they add to the output (negative when fewer). */
export interface SiteChanges {
  writes: Map<string, OutputFile["content"] | null>;
  added: number;
}

/** The site pages that the API's changes touch, where their bytes differ from the previous output's. */
export function siteChanges(plan: ApiChanges, previous: PreviousFiles): SiteChanges {
  const text = (path: string): string | undefined => {
    const written = plan.writes.get(path);
    return written === undefined ? previous.text(path) : written === null ? undefined : contentText(written);
  };
  const hostsWritten = plan.writes.has(fileFor("hosts"));
  const hosts = hostsOfList(text(fileFor("hosts"))!);
  const dirty = hosts.filter((h) => hostsWritten || plan.writes.has(fileFor("packages", { host: h.id })));
  if (dirty.length === 0) return { writes: new Map(), added: 0 };
  const files: FilesSource = plan.files ?? { defaultHost: hosts[0]?.id ?? "", of: () => undefined };
  const packagesOf = (host: string) =>
    sitePackages(host, JSON.parse(text(fileFor("packages", { host }))!) as Package[], files);

  const writes = new Map<string, OutputFile["content"] | null>();
  let added = 0;
  const put = (file: OutputFile) => {
    if (writes.has(file.path)) return;
    const before = previous.text(file.path);
    if (before === file.content) return;
    writes.set(file.path, file.content);
    if (before === undefined) added++;
  };
  const remove = (path: string) => {
    if (writes.has(path) || !previous.exists(path)) return;
    writes.set(path, null);
    added--;
  };
  /** A listing's pages: the new ones written where they differ, the old ones past its new end removed. */
  const putListing = (files: readonly OutputFile[], listing: Listing, pages = files.length) => {
    files.forEach(put);
    const folder = listingFolder(listing);
    for (let n = pages + 1; previous.exists(pageIn(folder, n)); n++) remove(pageIn(folder, n));
  };

  const home: HomeHost[] = [];
  for (const host of hosts) {
    const listFile = fileFor("packages", { host: host.id });
    const packages = packagesOf(host.id);
    home.push(homeHost(host, packages));
    if (!dirty.includes(host)) continue;
    const own = renderHostListing(host, packages, hostPagesToRender(plan, host.id, packages, hostsWritten, previous));
    putListing(own.slice(0, -1), { kind: "host", host: host.id }, pageCount(packages.length));
    put(own[own.length - 1]!);
    if (plan.writes.has(listFile)) putPackages(plan, host, packages, previous, { put, remove, putListing });
    // Every listing and package page names its host: a new name rewrites them all.
    if (hostsWritten) {
      for (const [listing, members] of filterListings(host.id, packages))
        putListing(renderListing(host, listing, members), listing);
      for (const p of packages)
        put({ path: packagePage(host.id, p.internal_name), content: renderPackagePage(host, p) });
    }
  }
  put({ path: HOME_PAGE, content: renderHomePage(home, plan.files !== undefined) });
  return { writes, added };
}

/**
 * Which pages of a host's own list can differ from the last build's. Each page shows the host's
 * name, its package count and the downloads when any package has downloads; page 1 also its
 * categories and top coders: when none of the first three can have moved (only packages edited in
 * place, none of them renamed, which would move it in the list, and a package whose downloads were
 * not edited still has some), only page 1 and the pages of the edited packages.
 */
function hostPagesToRender(
  plan: ApiChanges,
  host: string,
  packages: readonly SitePackage[],
  hostsWritten: boolean,
  previous: PreviousFiles,
): (page: number) => boolean {
  const all = () => true;
  if (hostsWritten || plan.removed.some((p) => p.host === host) || plan.added.some((p) => p.host === host)) return all;
  const byName = new Map(packages.map((p) => [p.internal_name, p]));
  const moved = plan.changed.some((ref) => {
    if (ref.host !== host) return false;
    const before = previous.text(fileFor("package", { host, name: ref.name }));
    return before === undefined || (JSON.parse(before) as Package).display_name !== byName.get(ref.name)?.display_name;
  });
  if (moved) return all;
  const changed = new Set(plan.changed.filter((p) => p.host === host).map((p) => p.name));
  if (!packages.some((p) => p.downloads > 0 && !changed.has(p.internal_name))) return all;
  const pages = new Set([1]);
  packages.forEach((p, i) => {
    if (changed.has(p.internal_name)) pages.add(Math.floor(i / PAGE_SIZE) + 1);
  });
  return (page) => pages.has(page);
}

interface Put {
  put(file: OutputFile): void;
  remove(path: string): void;
  putListing(files: readonly OutputFile[], listing: Listing, pages?: number): void;
}

/** The pages of a host's packages that the plan added, changed or removed, and of their categories and coders. */
function putPackages(
  plan: ApiChanges,
  host: SiteHost,
  packages: readonly SitePackage[],
  previous: PreviousFiles,
  out: Put,
): void {
  const byName = new Map(packages.map((p) => [p.internal_name, p]));
  const categories = new Set<string>();
  const coders = new Set<string>();
  const touch = (p: Pick<Package, "category" | "coder">) => {
    categories.add(p.category);
    coders.add(p.coder);
  };
  for (const { name } of [...plan.removed, ...plan.changed, ...plan.added].filter((p) => p.host === host.id)) {
    const before = previous.text(fileFor("package", { host: host.id, name }));
    if (before !== undefined) touch(JSON.parse(before) as Package);
    const now = byName.get(name);
    if (now) {
      touch(now);
      out.put({ path: packagePage(host.id, name), content: renderPackagePage(host, now) });
    } else out.remove(packagePage(host.id, name));
  }
  const listings = new Map(
    filterListings(host.id, packages).map(([listing, members]) => [listingFolder(listing), { listing, members }]),
  );
  const touched: Listing[] = [
    ...[...categories].map((category): Listing => ({ kind: "category", host: host.id, category })),
    ...[...coders].map((coder): Listing => ({ kind: "coder", host: host.id, coder })),
  ];
  for (const listing of touched) {
    const now = listings.get(listingFolder(listing));
    out.putListing(now ? renderListing(host, now.listing, now.members) : [], listing);
  }
}
