// A stand-in for the browse site and the OpenAPI document until the build writes them: a file of
// every type the site serves, at the paths it uses (SITE in routeTable.ts), a page for every package
// included, whose folder is named like a file when the package is (chart.js, index.html, 404.json).
// The platform tests add it to the build their emulation serves, so that how each host serves the
// site is checked now. When the build writes the real site, delete this file and its calls: the
// ExpectedApi then holds the real files.
import { siteUrlOf, type ExpectedApi } from "../../src/check/conformance.js";
import { contentTypeOf, isSiteFile } from "../../src/routes/routeTable.js";
import { writeFiles } from "./helpers.js";

/** The stand-in site's files for these hosts' packages, by path. ASCII only, each its own bytes. */
export function siteFiles(packages: ReadonlyMap<string, readonly { name: string }[]>): Map<string, string> {
  const page = (title: string) => `<!doctype html>\n<meta charset="utf-8">\n<title>${title}</title>\n`;
  const files = new Map<string, string>([
    ["index.html", page("shopfront")],
    ["openapi.json", `${JSON.stringify({ openapi: "3.1.0", info: { title: "shopfront", version: "1" } })}\n`],
    ["assets/site.css", "body { font-family: sans-serif; }\n"],
    ["assets/search.js", 'document.documentElement.dataset.search = "ready";\n'],
  ]);
  for (const [host, list] of packages) {
    files.set(`browse/${host}/index.html`, page(host));
    files.set(`browse/${host}/search.json`, `${JSON.stringify(list.map((p) => p.name))}\n`);
    for (const { name } of list) files.set(`browse/${host}/package/${name}/index.html`, page(`${host}: ${name}`));
  }
  for (const path of files.keys()) if (!isSiteFile(path)) throw new Error(`internal: ${path} is no site file`);
  return files;
}

/** `api` with the stand-in site's files; written into `dir` too when given (the built folder an emulation serves). */
export function addSiteFiles(api: ExpectedApi, dir?: string): ExpectedApi {
  const site = siteFiles(api.packages);
  if (dir !== undefined) writeFiles(dir, Object.fromEntries(site));
  return { ...api, files: new Map([...api.files, ...site]) };
}

/** Each stand-in file as a request: its URL (a folder's at the folder's URL, `/` for the home page), the file and its type. */
export function siteRequests(api: ExpectedApi): { target: string; file: string; type: string }[] {
  return [...siteFiles(api.packages).keys()].map((file) => ({
    target: siteUrlOf(file),
    file,
    type: contentTypeOf(file),
  }));
}
