// The browse site as the build writes it, for the platform tests: what each host must serve (the
// API, the OpenAPI document and the site) and a request for every file of the site.
import { expectedApi, siteUrlOf, type ExpectedApi } from "../../src/check/conformance.js";
import { renderOutput } from "../../src/output/renderOutput.js";
import type { RenderedCatalogue } from "../../src/render/renderApi.js";
import { contentTypeOf, isSiteFile } from "../../src/routes/routeTable.js";

/** Every file a build writes for the catalogue (API, OpenAPI document and site), as the conformance suite expects them. */
export function apiWithSite(catalogue: RenderedCatalogue): ExpectedApi {
  return expectedApi(renderOutput(catalogue, { site: true }), catalogue.packages);
}

/** Each file of the site as a request: its URL (a folder's at the folder's URL, `/` for the home page), the file and its type. */
export function siteRequests(api: ExpectedApi): { target: string; file: string; type: string }[] {
  return [...api.files.keys()]
    .filter((file) => isSiteFile(file))
    .map((file) => ({ target: siteUrlOf(file), file, type: contentTypeOf(file) }));
}
