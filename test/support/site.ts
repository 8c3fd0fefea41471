// The conformance fixture as the build writes it, for the platform tests: what each host must serve
// (the API, the OpenAPI document, the site and the package files) and a request for every file of
// the site.
import { siteUrlOf, type ExpectedApi } from "../../src/check/conformance.js";
import { expectedDeployment } from "../../src/check/expectedDeployment.js";
import { contentTypeOf, isSiteFile } from "../../src/routes/routeTable.js";
import { copyConformanceWithFiles } from "./helpers.js";
import { withAliasCopies } from "./packageFiles.js";

/**
 * Every file a build writes for the conformance fixture with package files (API, OpenAPI document, site and
 * the package files, made from the fixture's folders and zips as the build makes them), as the
 * conformance suite expects them. `copies`: with the copies at the aliases' paths that a host that
 * cannot rewrite needs (test/support/packageFiles.ts).
 */
export async function fixtureApi(options: { copies?: boolean } = {}): Promise<ExpectedApi> {
  const { api, problems } = await expectedDeployment(copyConformanceWithFiles(), { site: true });
  if (!api) throw new Error(`the conformance fixture did not load: ${JSON.stringify(problems)}`);
  return options.copies ? withAliasCopies(api) : api;
}

/** Each file of the site as a request: its URL (a folder's at the folder's URL, `/` for the home page), the file and its type. */
export function siteRequests(api: ExpectedApi): { target: string; file: string; type: string }[] {
  return [...api.files.keys()]
    .filter((file) => isSiteFile(file))
    .map((file) => ({ target: siteUrlOf(file), file, type: contentTypeOf(file) }));
}
