// The browse site: static HTML pages over the API's own objects, so the site always shows what the
// API answers. A full build assembles all of it from its hosts' spills (engine/buildAnew.ts); a
// rebuild the pages its changed packages touch (engine/planSite.ts), through the same assembler
// (assembleSite.ts). Here: what both take besides the packages, the site's assets and its hosts.
import { readFileSync } from "node:fs";
import type { HostInfo } from "../catalogue/fields.js";
import type { OutputFile } from "../render/renderApi.js";
import { PLACEHOLDER_ICON, SEARCH_SCRIPT, STYLESHEET } from "./sitePaths.js";
import type { SiteHost } from "./renderPages.js";

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

/** The hosts as the site names them, from hosts.json's. */
export function siteHosts(hosts: readonly HostInfo[]): SiteHost[] {
  return hosts.map((h) => ({ id: h.id, name: h.name, host: h.host, description: h.description }));
}

export type { FilesSource } from "./sitePackage.js";
