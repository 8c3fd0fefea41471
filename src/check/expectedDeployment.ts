// What a deployment of a catalogue must serve, as the conformance suite compares it: every file a
// build of the catalogue writes (less the targets' deploy files and the signed index, whose entry
// names the time of its build), the package files included. The catalogue is built by the engine
// itself (engine/), into a scratch output, so `check` expects exactly the files `build` makes; their
// bytes are read, and the scratch output removed.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Problem } from "../catalogue/problems.js";
import { buildCatalogue } from "../engine/buildCatalogue.js";
import { filtersAt, readState } from "../engine/buildState.js";
import { defaultBaseUrl } from "../render/renderToday.js";
import { outputLayout } from "../write/writeOutput.js";
import type { ExpectedApi } from "./conformance.js";

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
  const dir = mkdtempSync(join(tmpdir(), "shopfront-check-"));
  try {
    const out = join(dir, "dist");
    const onProgress = options.onProgress;
    const { problems, built } = await buildCatalogue({
      catalogueDir,
      outDir: out,
      site: options.site,
      baseUrl: options.baseUrl,
      ...(onProgress ? { onProgress: (phase, done, total) => phase === "reading" && onProgress(done, total) } : {}),
    });
    const state = built && readState(outputLayout(out).home);
    if (!state) return { problems };
    const baseUrl = (options.baseUrl ?? defaultBaseUrl(state.hostInfos, state.hostsDefault)).replace(/\/+$/, "");
    const packages = new Map(
      state.hosts.map((host) => {
        const index = state.packages[host]!;
        return [host, index.names.map((name, i) => ({ name, ...filtersAt(index, i) }))];
      }),
    );
    return { problems, api: { baseUrl, files: filesOf(realpathSync(out)), packages } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every file under `root` by its path there (`/` between names), its bytes as latin1 (OutputFile's strings). */
function filesOf(root: string, folder = "", files = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) filesOf(root, path, files);
    else files.set(path, readFileSync(join(root, path), "latin1"));
  }
  return files;
}
