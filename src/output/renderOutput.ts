// Every file a build writes for a catalogue, assembled in this one place: the API, the OpenAPI
// document, the browse site unless it is turned off, and the deploy files of the chosen targets. The
// full build writes them; `check` and the conformance suite expect a deployment to serve them (less the
// targets' files, which configure a host and are not served).
import { renderOpenApi } from "../openapi/renderOpenApi.js";
import { catalogueNames } from "../render/catalogueNames.js";
import { renderApi, type OutputFile, type RenderedCatalogue } from "../render/renderApi.js";
import { OPENAPI_FILE } from "../routes/routeTable.js";
import { renderSite } from "../site/renderSite.js";
import type { TargetId } from "../targets/target.js";
import { targetFiles } from "./targetFiles.js";

export interface OutputOptions {
  site: boolean;
  /** The targets whose deploy files the output holds; none when left out. */
  targets?: readonly TargetId[];
}

export function renderOutput(catalogue: RenderedCatalogue, options: OutputOptions): OutputFile[] {
  const targets = options.targets ?? [];
  return [
    ...renderApi(catalogue),
    { path: OPENAPI_FILE, content: renderOpenApi() },
    ...(options.site ? renderSite(catalogue) : []),
    ...(targets.length > 0 ? targetFiles(targets, catalogueNames(catalogue)) : []),
  ];
}
