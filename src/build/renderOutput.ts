// Every file a build writes for a catalogue, but the hosts' config files: the API (openapi.json
// included) and, unless it is turned off, the browse site. The build writes them; `check` and the
// conformance suite expect a deployment to serve exactly them.
import { renderApi, type OutputFile, type RenderedCatalogue } from "../render/renderApi.js";
import { renderSite } from "../site/renderSite.js";

export function renderOutput(catalogue: RenderedCatalogue, options: { site: boolean }): OutputFile[] {
  return [...renderApi(catalogue), ...(options.site ? renderSite(catalogue) : [])];
}
