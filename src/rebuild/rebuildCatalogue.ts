// The build after a build: the I/O around a pure plan. Survey which inputs moved, read those again,
// plan, then write the plan into the spare slot, publish it and remember the new state.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadManifest } from "../build/loadCatalogue.js";
import type { HostInfo } from "../catalogue/fields.js";
import { isError, sortProblems, type Problem } from "../catalogue/problems.js";
import { schemaValidators, type Validators } from "../catalogue/schemas.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { signatureOf, type Signature } from "../read/signature.js";
import type { TargetId } from "../targets/target.js";
import { validateHostsFile, HOSTS_FILE, MAX_SOURCE_BYTES } from "../validate/catalogueRules.js";
import { publish, slotDir, writeChanges, type LockedOutput } from "../write/writeOutput.js";
import { forgetState, signatureUnchanged, writeState, type BuildState } from "./buildState.js";
import { planRebuild, type LiveFiles, type RebuildSummary, type RereadPackage } from "./planRebuild.js";
import { statOrNothing, surveyCatalogue, type Survey } from "./surveyCatalogue.js";

export interface RebuildOptions {
  catalogueDir: string;
  targets: readonly TargetId[];
  /** The wall clock. */
  now: () => number;
}

/**
 * Brings the output of the build whose state this is up to date: signatures decide which manifests
 * to read, the live files which outputs changed. Undefined when the hosts themselves changed, which
 * takes a full build.
 */
export async function rebuildCatalogue(
  options: RebuildOptions,
  output: LockedOutput,
  state: BuildState,
): Promise<{ problems: Problem[]; built?: RebuildSummary } | undefined> {
  const snapshotMs = options.now();
  const hostsFile = await rereadHostsFile(options.catalogueDir, state);
  if (!hostsFile) return undefined;
  const survey = surveyCatalogue(options.catalogueDir, state);
  const manifests = await rereadManifests(options.catalogueDir, survey.toRead);
  const problems = sortProblems([...hostsFile.problems, ...survey.problems, ...manifests.problems]);
  if (problems.some(isError)) return { problems };

  const inputs = {
    snapshotMs,
    hostsFile: hostsFile.signature,
    hosts: hostsFile.hosts,
    packages: manifests.packages,
    problems,
    targets: options.targets,
  };
  const plan = planRebuild(state, survey, inputs, liveFiles(slotDir(output, output.live!)));
  const home = output.layout.home;
  if (plan.writes.size > 0) {
    forgetState(home);
    writeChanges(output, state.spare, plan.writes);
    publish(output);
    writeState(home, { ...plan.state, live: output.spare, spare: [...plan.writes.keys()] });
  } else if (plan.stateMoved) {
    // Touched but unchanged inputs: remember their new signatures so they are not read again.
    writeState(home, plan.state);
  }
  return { problems, built: plan.summary };
}

interface HostsFileNow {
  signature: Signature;
  problems: Problem[];
  /** Present when the file was read again. */
  hosts?: readonly HostInfo[];
}

/**
 * hosts.json as it is now, read again only when its signature moved. Undefined when it is no longer
 * a regular file or declares other hosts: only a full build handles that.
 */
async function rereadHostsFile(dir: string, state: BuildState): Promise<HostsFileNow | undefined> {
  const path = join(dir, HOSTS_FILE);
  const now = statOrNothing(path);
  if (!now?.isFile()) return undefined;
  if (signatureUnchanged(now, state.hostsFile, state.snapshotMs)) {
    return { signature: state.hostsFile, problems: state.warnings.filter((w) => w.file === HOSTS_FILE) };
  }
  const validators = await schemaValidators();
  const source = readSourceFile(path, MAX_SOURCE_BYTES);
  const checked = validateHostsFile(source, validators);
  if (!checked.hostsFile || checked.hostsFile.hosts.map((h) => h.id).join("/") !== state.hosts.join("/"))
    return undefined;
  return {
    signature: source.signature ?? signatureOf(now),
    problems: checked.problems,
    hosts: checked.hostsFile.hosts,
  };
}

/** Reads, validates and renders the manifests the survey sent to be read again. */
async function rereadManifests(
  dir: string,
  toRead: Survey["toRead"],
): Promise<{ problems: Problem[]; packages: RereadPackage[] }> {
  const problems: Problem[] = [];
  const packages: RereadPackage[] = [];
  let validators: Validators | undefined;
  for (const { ref, index } of toRead) {
    // Loaded on first use, so a rebuild with nothing to read never loads the validators.
    validators ??= await schemaValidators();
    const manifest = loadManifest(dir, ref, validators);
    problems.push(...manifest.problems);
    if (manifest.loaded) packages.push({ ...manifest.loaded, host: ref.host, index });
  }
  return { problems, packages };
}

/** The live slot's files, as the plan reads them; a file that cannot be read counts as changed. */
function liveFiles(dir: string): LiveFiles {
  return {
    text(path) {
      try {
        return readFileSync(join(dir, path), "latin1");
      } catch {
        return undefined;
      }
    },
    bytes: (path) => readFileSync(join(dir, path)),
    exists: (path) => existsSync(join(dir, path)),
  };
}
