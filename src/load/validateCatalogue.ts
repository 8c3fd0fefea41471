// `shopfront validate`: the load step and nothing after it; no file is written. The packages stream
// by as in a full build, each counted and, with package files, told to the Homebrew Browser's lists,
// so that validate reports what build reports and never holds the catalogue.
import type { HostsFile } from "../catalogue/fields.js";
import { applyStrict, isError, sortProblems, type Problem } from "../catalogue/problems.js";
import { HbbLists, hbbSourceOf } from "../render/renderHbb.js";
import { loadCatalogue } from "./loadCatalogue.js";

export interface ValidationResult {
  problems: Problem[];
  /** What a valid catalogue holds; absent when it has errors. */
  valid?: { hosts: number; packages: number };
}

/** With `strict` (`validate --strict`), every warning is an error. */
export async function validateCatalogue(
  catalogueDir: string,
  options: { strict?: boolean } = {},
): Promise<ValidationResult> {
  let hostsFile: HostsFile | undefined;
  let lists: HbbLists | undefined;
  let packages = 0;
  const loaded = await loadCatalogue(catalogueDir, undefined, {
    onHosts: (hosts, withFiles) => {
      hostsFile = hosts;
      lists = withFiles ? new HbbLists() : undefined;
    },
    onPackage: (host, { pkg }) => {
      packages++;
      lists?.add(host, hbbSourceOf(pkg));
    },
  });
  if (!loaded.sources || !hostsFile || loaded.problems.some(isError))
    return { problems: applyStrict(loaded.problems, options.strict) };
  // What the Homebrew Browser's lists leave out or cut, once every package has passed: as the full
  // build's engine/streamPackageFiles.ts reports them.
  const hosts = hostsFile.hosts;
  const surface = lists ? lists.finish(hosts, hostsFile.default).problems : [];
  const problems = applyStrict(sortProblems([...loaded.problems, ...surface]), options.strict);
  if (problems.some(isError)) return { problems };
  return { problems, valid: { hosts: hosts.length, packages } };
}
