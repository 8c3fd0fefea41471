// What a deployment of a catalogue must serve, as the conformance suite compares it: every file a
// build of the catalogue writes (less the targets' deploy files), the package files included. Their
// bytes are made as the build makes them (a folder zipped reproducibly, the binary, meta.xml and icon
// unpacked from the archive) in a scratch folder, read, and the folder removed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Problem } from "../catalogue/problems.js";
import { loadCatalogue } from "../load/loadCatalogue.js";
import { renderOutput } from "../output/renderOutput.js";
import { defaultBaseUrl } from "../render/renderToday.js";
import { expectedApi, type ExpectedApi } from "./conformance.js";

export interface ExpectedOptions {
  /** Whether the build has the browse site (build --no-site leaves it out). */
  site: boolean;
  /** The base URL the build was made with (build --base-url); the build's default when left out. */
  baseUrl?: string | undefined;
  onProgress?: (done: number, total: number) => void;
}

/** The catalogue's problems, and what a deployment of its build serves when it loads. */
export async function expectedDeployment(
  catalogueDir: string,
  options: ExpectedOptions,
): Promise<{ problems: Problem[]; api?: ExpectedApi }> {
  const workDir = mkdtempSync(join(tmpdir(), "shopfront-check-"));
  try {
    const { problems, catalogue } = await loadCatalogue(catalogueDir, options.onProgress, { workDir, store: true });
    if (!catalogue) return { problems };
    const baseUrl = (options.baseUrl ?? defaultBaseUrl(catalogue.hosts, catalogue.hostsDefault)).replace(/\/+$/, "");
    const files = renderOutput(catalogue, { site: options.site, baseUrl });
    // expectedApi reads each stored file's bytes before the scratch folder goes.
    return { problems, api: expectedApi(files, catalogue.packages, baseUrl) };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
