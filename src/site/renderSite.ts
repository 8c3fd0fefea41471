// The browse site: static HTML pages over the API's own objects, so the site always shows what the
// API answers. A full build assembles all of it (renderSite); a rebuild the pages its changed
// packages touch (engine/planSite.ts), through the same assembler (assembleSite.ts).
import { readFileSync } from "node:fs";
import type { HostInfo, Package } from "../catalogue/fields.js";
import type { OutputFile, RenderedCatalogue } from "../render/renderApi.js";
import { todayUrlsOf } from "../render/renderToday.js";
import { assembleFeeds } from "./assembleFeeds.js";
import { assembleSite } from "./assembleSite.js";
import { sitePackage, type FilesSource } from "./sitePackage.js";
import type { SiteIndex } from "./siteIndex.js";
import { packagePage, PLACEHOLDER_ICON, SEARCH_SCRIPT, STYLESHEET } from "./sitePaths.js";
import { renderPackagePage, type SiteHost } from "./renderPages.js";

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

/**
 * Every file of the site, its hosts' feeds included, in no particular order, and the index the next
 * build starts from. The feeds' URLs are under `baseUrl` (the v3 and v4 APIs' default when left out).
 */
export function renderSite(
  catalogue: RenderedCatalogue,
  baseUrl?: string | undefined,
): { files: OutputFile[]; index: SiteIndex } {
  const site = siteFiles(catalogue, baseUrl);
  return { files: [...site.files], index: site.index };
}

/**
 * The site's files as a full build writes them: every page but the packages' own rendered at once,
 * each package page only when it is taken (they are most of the site's bytes), so neither the pages
 * nor the packages as the site reads them are all held at once.
 */
function siteFiles(
  catalogue: RenderedCatalogue,
  baseUrl?: string | undefined,
): { files: Iterable<OutputFile>; index: SiteIndex } {
  const hosts = siteHosts(catalogue.hosts);
  const files: FilesSource = {
    defaultHost: catalogue.defaultHost ?? hosts[0]?.id ?? "",
    of: (host, name) => filesOf.get(host)?.get(name),
  };
  const filesOf = new Map(
    [...catalogue.packages].map(([host, list]) => [
      host,
      new Map(list.flatMap((p) => (p.files ? [[p.name, p.files] as const] : []))),
    ]),
  );
  const fresh = new Map(
    hosts.map((h) => [
      h.id,
      (catalogue.packages.get(h.id) ?? []).map((p) => sitePackage(h.id, JSON.parse(p.json) as Package, files)),
    ]),
  );
  // A build with package files has the Homebrew Browser's surface (render/renderHbb.ts).
  const site = assembleSite({
    hosts,
    fresh,
    gone: new Map(),
    files,
    hbb: catalogue.defaultHost !== undefined,
    pagesByCaller: true,
  });
  const feeds = assembleFeeds({
    hosts,
    index: site.index,
    fresh,
    baseUrl: todayUrlsOf(catalogue.hosts, catalogue.hostsDefault, baseUrl).baseUrl,
  });
  function* all(): Generator<OutputFile> {
    yield* siteAssets();
    // Each page let go once taken: the listings hold every package's row.
    for (const [path, content] of site.writes) {
      site.writes.delete(path);
      yield { path, content: content! };
    }
    for (const [path, content] of feeds.writes) yield { path, content };
    // Each package's page, its object parsed again here rather than every one held until written.
    for (const host of hosts)
      for (const p of catalogue.packages.get(host.id) ?? []) {
        const pkg = sitePackage(host.id, JSON.parse(p.json) as Package, files);
        yield { path: packagePage(host.id, p.name), content: renderPackagePage(host, pkg) };
      }
  }
  return { files: all(), index: site.index };
}

/** The hosts as the site names them, from hosts.json's. */
export function siteHosts(hosts: readonly HostInfo[]): SiteHost[] {
  return hosts.map((h) => ({ id: h.id, name: h.name, host: h.host, description: h.description }));
}

export type { FilesSource } from "./sitePackage.js";
