// The browse site as the build writes it, for the platform tests: what each host must serve (the
// API, the OpenAPI document and the site) and a request for every file of the site.
import { expectedApi, siteUrlOf, type ExpectedApi } from "../../src/check/conformance.js";
import { renderOutput } from "../../src/output/renderOutput.js";
import type { RenderedCatalogue } from "../../src/render/renderApi.js";
import { contentTypeOf, isSiteFile } from "../../src/routes/routeTable.js";
import { aliasCopies, fakePackageFiles, FIXTURE_DEFAULT_HOST, withPackageFiles } from "./packageFiles.js";

/**
 * Every file a build writes for the conformance fixture's catalogue (API, OpenAPI document, site and
 * the package files that test/support/packageFiles.ts stands in for), as the conformance suite
 * expects them. `copies`: with the alias copies a host that cannot rewrite needs (aliasFilesOf).
 */
export function apiWithSite(catalogue: RenderedCatalogue, options: { copies?: boolean } = {}): ExpectedApi {
  const files = fakePackageFiles(catalogue, FIXTURE_DEFAULT_HOST);
  const api = withPackageFiles(expectedApi(renderOutput(catalogue, { site: true }), catalogue.packages), files);
  return options.copies ? withPackageFiles(api, aliasCopies(files)) : api;
}

/** Each file of the site as a request: its URL (a folder's at the folder's URL, `/` for the home page), the file and its type. */
export function siteRequests(api: ExpectedApi): { target: string; file: string; type: string }[] {
  return [...api.files.keys()]
    .filter((file) => isSiteFile(file))
    .map((file) => ({ target: siteUrlOf(file), file, type: contentTypeOf(file) }));
}
