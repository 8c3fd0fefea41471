// The core's two commands: check a catalogue (read -> validate -> render), and build it (check,
// then write every file of the API atomically). They return data; the CLI prints it.
import { join } from "node:path";
import { UsageError } from "./errors.js";
import { isError, sortProblems, type Problem } from "./problems.js";
import { listCatalogue, readSourceFile, type CatalogueListing } from "./readCatalogue.js";
import { renderApi, renderPackage, type OutputFile, type RenderedCatalogue, type RenderedPackage } from "./renderApi.js";
import { targetById } from "./targets/index.js";
import type { CatalogueNames, TargetId } from "./targets/target.js";
import { schemaValidators } from "./schemas.js";
import { checkHostsFile, checkLayout, checkManifest, HOSTS_FILE, MAX_SOURCE_BYTES } from "./validateCatalogue.js";
import { writeOutput } from "./writeOutput.js";

export interface CatalogueCheck {
  /** Every problem found, errors and warnings, in a stable order. */
  problems: Problem[];
  /** The rendered catalogue, present only when there is no error. */
  catalogue?: RenderedCatalogue;
}

function readListing(catalogueDir: string): CatalogueListing {
  try {
    return listCatalogue(catalogueDir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "there is no such folder" : code === "ENOTDIR" ? "it is not a folder" : (e as Error).message;
    throw new UsageError(`cannot read the catalogue ${catalogueDir}: ${why}`);
  }
}

export async function checkCatalogue(catalogueDir: string): Promise<CatalogueCheck> {
  const listing = readListing(catalogueDir);
  const validators = await schemaValidators();
  const problems: Problem[] = [];

  const hostsEntry = listing.root.find((e) => e.name === HOSTS_FILE);
  // A hosts.json that is not a regular file is reported by checkLayout; it cannot declare hosts.
  const hosts =
    hostsEntry === undefined || hostsEntry.kind === "file"
      ? checkHostsFile(hostsEntry && readSourceFile(join(catalogueDir, HOSTS_FILE), MAX_SOURCE_BYTES), validators)
      : { problems: [] };
  problems.push(...hosts.problems);

  const layout = checkLayout(listing, hosts.declared);
  problems.push(...layout.problems);

  const packages = new Map<string, RenderedPackage[]>();
  for (const ref of layout.manifests) {
    const checked = checkManifest(ref, readSourceFile(join(catalogueDir, ref.file), MAX_SOURCE_BYTES), validators);
    problems.push(...checked.problems);
    if (!checked.manifest) continue;
    let list = packages.get(ref.host);
    if (!list) packages.set(ref.host, (list = []));
    list.push({ name: ref.name, json: renderPackage(checked.manifest) });
  }
  for (const list of packages.values()) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const sorted = sortProblems(problems);
  if (sorted.some(isError) || !hosts.hostsFile) return { problems: sorted };
  return { problems: sorted, catalogue: { hosts: hosts.hostsFile.hosts, packages } };
}

export interface BuildOptions {
  catalogueDir: string;
  outDir: string;
  /** Hosts whose config files belong in the output root (`build --target`). */
  targets?: readonly TargetId[];
}

export interface BuildResult extends CatalogueCheck {
  /** What was written; absent when the catalogue has errors and nothing was written. */
  built?: { hosts: number; packages: number; files: number };
}

/** The names of a validated catalogue, as the target generators take them. */
export function catalogueNames(catalogue: RenderedCatalogue): CatalogueNames {
  return {
    hosts: catalogue.hosts.map((h) => h.id),
    packages: new Map([...catalogue.packages].map(([host, list]) => [host, list.map((p) => p.name)])),
  };
}

function targetFiles(ids: readonly TargetId[], catalogue: RenderedCatalogue): OutputFile[] {
  const files: OutputFile[] = [];
  const owner = new Map<string, TargetId>();
  for (const id of new Set(ids)) {
    for (const file of targetById(id).deployFiles?.(catalogueNames(catalogue)) ?? []) {
      const other = owner.get(file.path);
      if (other) throw new UsageError(`--target ${other} and --target ${id} both write ${file.path}; build one of them at a time`);
      owner.set(file.path, id);
      files.push(file);
    }
  }
  return files;
}

/** Checks the catalogue and, only when it has no error, writes the whole API to `outDir`. */
export async function buildCatalogue(options: BuildOptions): Promise<BuildResult> {
  const check = await checkCatalogue(options.catalogueDir);
  if (!check.catalogue) return check;
  const files = [...renderApi(check.catalogue), ...targetFiles(options.targets ?? [], check.catalogue)];
  writeOutput(options.outDir, files);
  let packages = 0;
  for (const list of check.catalogue.packages.values()) packages += list.length;
  return { ...check, built: { hosts: check.catalogue.hosts.length, packages, files: files.length } };
}
