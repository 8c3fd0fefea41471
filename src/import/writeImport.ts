// Over 350 lines: every import's last step, the checks and the writes of one transaction.
// The last step of every import: what a reader (a Homebrew Browser list, a running API) found, written
// into a catalogue. Each package is checked by the catalogue's own rules before it is written, so the
// written catalogue validates; a package that cannot be written as it is, is skipped with the reasons,
// never changed to fit. Nothing existing is overwritten without `force`. A package may bring its
// files: an archive fetched or copied in (an API's, a mirror's), or files already checked (an oscmeta
// repository's), copied beside its manifest. Everything is written into a hidden staging folder in
// the catalogue first and moved into place only when the import succeeds: an import that fails
// (nothing could be imported, or an error on the way) leaves the catalogue as it was.
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { NO_STATS, type HostInfo, type HostsFile, type PackageStats } from "../catalogue/fields.js";
import { foldCase, isValidName, NAME_RULE } from "../catalogue/names.js";
import { isError, type Problem } from "../catalogue/problems.js";
import { schemaValidators, type Validators } from "../catalogue/schemas.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { writeAtomically } from "../util/writeAtomically.js";
import { describeSchemaError } from "../validate/describeSchemaError.js";
import { IMPORTED_HOST_DESCRIPTION } from "../validate/placeholderRules.js";
import { manifestText } from "../catalogue/manifestFile.js";
import { serializeStats, statsFileOf, type StatsFile } from "../catalogue/statsFile.js";
import {
  HOSTS_FILE,
  MANIFEST_EXTENSION,
  MAX_SOURCE_BYTES,
  MAX_STATS_BYTES,
  validateHostsFile,
  validateManifest,
  validateStatsFile,
} from "../validate/catalogueRules.js";
import { compareCodePoints } from "../util/codePoints.js";
import {
  ARCHIVE_EXTENSION,
  fetchArchives,
  type ArchiveSource,
  type DownloadSettings,
  type LocalArchive,
} from "./fetchArchives.js";

/** A package as a reader found it: its manifest fields as read (not yet checked) and its numbers. */
export interface ImportedPackage {
  host: string;
  /** Its internal_name as the source gives it. */
  name: string;
  /** Where it was read, for reports: `line 12`, `https://.../v2/primary/packages [3]`. */
  source: string;
  manifest: Record<string, unknown>;
  /** Its numbers, which replace its stats entry; a field left out is the default, as in a stats file. */
  stats?: Partial<PackageStats>;
  /** Its package files, already checked, copied to `<host>/<name>.zip` or `<host>/<name>/`. */
  files?: { kind: "zip" | "folder"; path: string };
  /** Its archive, fetched or copied into the catalogue as `<host>/<name>.zip` (the manifest then leaves out what the files give). */
  archive?: ArchiveSource | LocalArchive;
}

/** A package, or a part of the source, that was not imported, and why. */
export interface SkippedEntry {
  source: string;
  host?: string;
  name?: string;
  reasons: string[];
}

/** What a reader found. */
export interface ImportSource {
  /** The hosts, for readers that know them (an API's /v1/hosts); written when the catalogue has none. */
  hosts?: HostsFile;
  /** Hosts a reader imports into that it knows nothing of but their id (a list imported `--host ID`). */
  hostIds?: string[];
  /** What a reader knows of such a host besides its id (a name, a description): declared with it, placeholders for the rest. */
  hostDetails?: ReadonlyMap<string, Partial<HostInfo>>;
  packages: ImportedPackage[];
  /** What the reader could not read. */
  skipped: SkippedEntry[];
  /** Fields the source has and the API has not, with how many packages had them. */
  notCarriedOver: Map<string, number>;
  /** How the reader read what it could (an encoding it assumed, a category it inferred). */
  notes?: string[];
}

export interface ImportOptions {
  catalogueDir: string;
  /** Overwrite existing manifests, stats entries, archives and hosts.json. */
  force: boolean;
  /** How packages' archives are fetched: how many at once, how long one may stall, and progress. */
  downloads?: DownloadSettings;
}

const DEFAULT_DOWNLOADS: DownloadSettings = { concurrency: 4, timeoutSeconds: 30 };

export interface ImportSummary {
  /** Manifests written, relative to the catalogue folder. */
  written: string[];
  /** Archives fetched into the catalogue, relative to its folder (`primary/snake.zip`). */
  archives: string[];
  /** Manifests already there as the import would write them, with their archives whole: left as they are. */
  alreadyThere: string[];
  skipped: SkippedEntry[];
  notCarriedOver: [string, number][];
  notes: string[];
  /** What happened to hosts.json. */
  hostsFile: "kept" | "written" | "hosts added";
  /** Hosts declared with placeholder name, host and description, to be edited. */
  placeholderHosts: string[];
  /** Stats files written, relative to the catalogue folder. */
  statsFiles: string[];
  /** True when no package could be imported and something was skipped: the import wrote nothing at all. */
  failed: boolean;
}

export interface ImportResult {
  /** Problems of the catalogue's hosts.json or stats files that stop the import: nothing was written. */
  problems: Problem[];
  summary?: ImportSummary;
}

/** A DNS label made of a host id (which may hold `_` and `.`). */
function dnsLabel(id: string): string {
  const label = id
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 63)
    .replace(/^-+|-+$/g, "");
  return label || "host";
}

/** The placeholder a host that a reader names only by its id is declared with, under a domain reserved for examples. */
function placeholderHost(id: string): HostInfo {
  return {
    id,
    name: id,
    host: `${dnsLabel(id)}.example.org`,
    description: IMPORTED_HOST_DESCRIPTION,
  };
}

/** The hosts.json the import writes, or the problems of the one there. */
function planHosts(
  options: ImportOptions,
  source: ImportSource,
  validators: Validators,
): { problems: Problem[]; hosts?: HostsFile; change: ImportSummary["hostsFile"]; placeholders: string[] } {
  const path = join(options.catalogueDir, HOSTS_FILE);
  const there = existsSync(path);
  if (source.hosts && (!there || options.force))
    return { problems: [], hosts: source.hosts, change: "written", placeholders: [] };
  let current: HostsFile = { default: "", hosts: [] };
  if (there) {
    const checked = validateHostsFile(readSourceFile(path, MAX_SOURCE_BYTES), validators);
    if (!checked.hostsFile) return { problems: checked.problems, change: "kept", placeholders: [] };
    current = checked.hostsFile;
  }
  const declared = new Set(current.hosts.map((h) => h.id));
  const missing = (source.hostIds ?? []).filter((id) => !declared.has(id));
  if (missing.length === 0) return { problems: [], hosts: current, change: "kept", placeholders: [] };
  const hosts = [
    ...current.hosts,
    ...missing.map((id) => ({ ...placeholderHost(id), ...source.hostDetails?.get(id), id })),
  ];
  return {
    problems: [],
    hosts: { default: current.default || hosts[0]!.id, hosts },
    change: there ? "hosts added" : "written",
    placeholders: missing,
  };
}

/** A host's stats file as it is, or the problems that keep the import from adding to it. */
function readStats(
  catalogueDir: string,
  host: string,
  validators: Validators,
): { problems: Problem[]; stats?: StatsFile } {
  const file = statsFileOf(host);
  const path = join(catalogueDir, file);
  if (!existsSync(path)) return { problems: [], stats: { packages: {} } };
  const checked = validateStatsFile(file, readSourceFile(path, MAX_STATS_BYTES), validators);
  return checked.stats && !checked.problems.some(isError)
    ? { problems: [], stats: checked.stats }
    : { problems: checked.problems };
}

/** The names a host has and the names this import gives it, by their folded form. */
interface HostNames {
  existing: Map<string, string>;
  importing: Map<string, ImportedPackage>;
}

/** Why a package cannot be written as it is; none when it can; "same" when its manifest is there as it would be written. */
function packageReasons(
  pkg: ImportedPackage,
  file: string,
  names: HostNames,
  options: ImportOptions,
  validators: Validators,
): string[] | "same" {
  if (!isValidName(pkg.name)) return [`its name ${JSON.stringify(pkg.name)} cannot be a package name: ${NAME_RULE}`];
  const folded = foldCase(pkg.name);
  const earlier = names.importing.get(folded);
  if (earlier)
    return [
      earlier.name === pkg.name
        ? `the source has ${pkg.name} twice; the first (${earlier.source}) is imported`
        : `its name differs only in case from ${earlier.name} (${earlier.source}), which is imported`,
    ];
  const existing = names.existing.get(folded);
  if (existing !== undefined && existing !== pkg.name)
    return [`its name differs only in case from ${pkg.host}/${existing}${MANIFEST_EXTENSION}, which the host has`];
  const bytes = Buffer.from(manifestText(pkg.manifest));
  if (existing !== undefined && !options.force) {
    if (!pkg.files && bytes.equals(readFileSync(join(options.catalogueDir, file)))) return "same";
    return [`${file} exists (--force overwrites it)`];
  }
  if (pkg.files && !options.force) {
    const there = filesPaths(options.catalogueDir, pkg).filter((f) => existsSync(f.path));
    if (there.length > 0) return [`${there.map((f) => f.file).join(" and ")} exists (--force overwrites it)`];
  }
  const reasons: string[] = [];
  const filesKind = pkg.files ? pkg.files.kind : pkg.archive ? ("zip" as const) : undefined;
  const checked = validateManifest(
    { host: pkg.host, name: pkg.name, file, ...(filesKind ? { files: filesKind } : {}) },
    { bytes },
    validators,
  );
  for (const p of checked.problems.filter(isError)) reasons.push(`${p.pointer || "the manifest"} ${p.message}`);
  if (pkg.stats && !validators.stats({ packages: { [pkg.name]: pkg.stats } })) {
    for (const error of validators.stats.errors ?? []) {
      const f = describeSchemaError(error);
      reasons.push(`${f.pointer.replace(`/packages/${pkg.name}`, "")} ${f.message}`);
    }
  }
  return reasons;
}

/**
 * Writes what a reader found into the catalogue: hosts.json when it has none (or `force`), each
 * package that passes the catalogue's rules, and their numbers into the hosts' stats files.
 */
export async function writeImport(source: ImportSource, options: ImportOptions): Promise<ImportResult> {
  const validators = await schemaValidators();
  const hosts = planHosts(options, source, validators);
  if (!hosts.hosts) return { problems: hosts.problems };
  const declared = new Set(hosts.hosts.hosts.map((h) => h.id));

  const stats = new Map<string, StatsFile>();
  const problems: Problem[] = [];
  for (const host of new Set(source.packages.map((p) => p.host))) {
    if (!declared.has(host)) continue;
    const read = readStats(options.catalogueDir, host, validators);
    problems.push(...read.problems);
    if (read.stats) stats.set(host, read.stats);
  }
  if (problems.length > 0) return { problems };

  const skipped = [...source.skipped];
  const toWrite: { pkg: ImportedPackage; file: string; same?: boolean }[] = [];
  const byHost = new Map<string, HostNames>();
  for (const pkg of source.packages) {
    const file = `${pkg.host}/${pkg.name}${MANIFEST_EXTENSION}`;
    const entry = { source: pkg.source, host: pkg.host, name: pkg.name };
    if (!declared.has(pkg.host)) {
      skipped.push({ ...entry, reasons: [`host ${pkg.host} is not declared in ${HOSTS_FILE} (--force replaces it)`] });
      continue;
    }
    let names = byHost.get(pkg.host);
    if (!names)
      byHost.set(pkg.host, (names = { existing: existingNames(options.catalogueDir, pkg.host), importing: new Map() }));
    const reasons = packageReasons(pkg, file, names, options, validators);
    if (reasons !== "same" && reasons.length > 0) skipped.push({ ...entry, reasons });
    else {
      toWrite.push({ pkg, file, same: reasons === "same" });
      names.importing.set(foldCase(pkg.name), pkg);
    }
  }

  // The catalogue folder is made for the staging folder, and removed again if the import fails.
  const madeCatalogue = mkdirSync(options.catalogueDir, { recursive: true });
  const stage = mkdtempSync(join(options.catalogueDir, ".shopfront-import-"));
  let committed = false;
  try {
    // The archives before any manifest: a package whose archive cannot be had is not written at all,
    // since its manifest leaves out what the archive gives.
    const archives = await fetchArchives(
      toWrite.filter((w) => w.pkg.archive).map((w) => w.pkg),
      options.catalogueDir,
      stage,
      options.force,
      options.downloads ?? DEFAULT_DOWNLOADS,
    );
    const alreadyThere: string[] = [];
    for (let i = toWrite.length - 1; i >= 0; i--) {
      const { pkg, file, same } = toWrite[i]!;
      const outcome = archives.get(pkg);
      if (outcome !== undefined && outcome !== "whole" && outcome !== "fetched") {
        skipped.push({ source: pkg.source, host: pkg.host, name: pkg.name, reasons: [outcome] });
        toWrite.splice(i, 1);
      } else if (same && outcome !== "fetched") {
        alreadyThere.unshift(file);
        toWrite.splice(i, 1);
      }
    }
    // Skipped packages in the order the source has them, whichever step refused them.
    const order = new Map(source.packages.map((p, i) => [p.source, i]));
    skipped.sort((a, b) => (order.get(a.source) ?? -1) - (order.get(b.source) ?? -1));
    const fetched = source.packages
      .filter((pkg) => archives.get(pkg) === "fetched")
      .map((pkg) => `${pkg.host}/${pkg.name}${ARCHIVE_EXTENSION}`);

    const summary: ImportSummary = {
      written: toWrite.filter((w) => !w.same).map((w) => w.file),
      archives: fetched,
      alreadyThere,
      skipped,
      notCarriedOver: [...source.notCarriedOver].sort((a, b) => compareCodePoints(a[0], b[0])),
      notes: [...(source.notes ?? []), ...hostNotes(hosts.placeholders, source)],
      hostsFile: hosts.change,
      placeholderHosts: hosts.placeholders,
      statsFiles: [],
      failed: false,
    };
    if (toWrite.length === 0 && skipped.length > 0)
      return {
        problems: [],
        summary: { ...summary, archives: [], hostsFile: "kept", placeholderHosts: [], failed: true },
      };

    // Staged: hosts.json, the package files (fetched archives are there already), the manifests, the stats files.
    const staged: string[] = [...fetched];
    const stageFile = (file: string, text: string) => {
      writeAtomically(join(stage, file), text);
      staged.push(file);
    };
    if (hosts.change !== "kept") stageFile(HOSTS_FILE, `${JSON.stringify(hosts.hosts, null, 2)}\n`);
    for (const { pkg, file, same } of toWrite) {
      if (pkg.files) staged.push(stagePackageFiles(stage, pkg, pkg.files));
      if (!same) stageFile(file, manifestText(pkg.manifest));
    }
    for (const [host, file] of stats) {
      const written = toWrite.filter((w) => w.pkg.host === host && w.pkg.stats);
      if (written.length === 0) continue;
      const packages = new Map(Object.entries(file.packages));
      // Only the numbers that are not the default go in, as `stats count` writes them; a package at 0
      // and "" has no entry, which says the same (and an entry it had goes).
      for (const { pkg } of written) {
        const entry = Object.fromEntries(
          Object.entries(pkg.stats!).filter(([key, value]) => value !== NO_STATS[key as keyof PackageStats]),
        );
        if (Object.keys(entry).length === 0) packages.delete(pkg.name);
        else packages.set(pkg.name, entry);
      }
      if (packages.size === 0 && !existsSync(join(options.catalogueDir, statsFileOf(host)))) continue;
      stageFile(statsFileOf(host), serializeStats({ ...file, packages: Object.fromEntries(packages) }));
      summary.statsFiles.push(statsFileOf(host));
    }

    for (const id of declared) mkdirSync(join(options.catalogueDir, id), { recursive: true });
    commitStaged(stage, options.catalogueDir, staged);
    committed = true;
    return { problems: [], summary };
  } finally {
    rmSync(stage, { recursive: true, force: true });
    if (!committed && madeCatalogue !== undefined) rmSync(madeCatalogue, { recursive: true, force: true });
  }
}

/**
 * Moves each staged file or folder (a path relative to both folders) to its place in the
 * catalogue, each by one rename; a package's files replace both forms it may have had there.
 */
function commitStaged(stage: string, catalogueDir: string, staged: readonly string[]): void {
  for (const file of staged) {
    const target = join(catalogueDir, file.replace(/\/$/, ""));
    mkdirSync(dirname(target), { recursive: true });
    const packageFiles = /^([^/]+)\/([^/]+?)(?:\.zip|\/)$/.exec(file);
    if (packageFiles) {
      const [, host, name] = packageFiles;
      for (const other of [join(catalogueDir, host!, name!), join(catalogueDir, host!, `${name}.zip`)])
        rmSync(other, { recursive: true, force: true });
    }
    renameSync(join(stage, file.replace(/\/$/, "")), target);
  }
}

/** For a placeholder host the source knew more of than its id: which values are the source's, not placeholders. */
function hostNotes(placeholders: readonly string[], source: ImportSource): string[] {
  return placeholders.flatMap((id) => {
    const given = Object.keys(source.hostDetails?.get(id) ?? {}).filter((k) => k !== "id");
    if (given.length === 0) return [];
    return [
      `host ${id}'s ${given.join(" and ")} ${given.length > 1 ? "are" : "is"} the source's; the rest are placeholders`,
    ];
  });
}

/** Where a package's files go in the catalogue, either form (a package has one: the other is removed). */
function filesPaths(
  catalogueDir: string,
  pkg: ImportedPackage,
): { kind: "zip" | "folder"; file: string; path: string }[] {
  return [
    { kind: "zip", file: `${pkg.host}/${pkg.name}.zip`, path: join(catalogueDir, pkg.host, `${pkg.name}.zip`) },
    { kind: "folder", file: `${pkg.host}/${pkg.name}/`, path: join(catalogueDir, pkg.host, pkg.name) },
  ];
}

/**
 * Copies a package's already checked files into the staging folder, where its manifest will be
 * (`<host>/<name>.zip` or `<host>/<name>/`), and returns that path relative to the staging folder.
 */
function stagePackageFiles(stage: string, pkg: ImportedPackage, files: NonNullable<ImportedPackage["files"]>): string {
  const file = files.kind === "zip" ? `${pkg.host}/${pkg.name}.zip` : `${pkg.host}/${pkg.name}/`;
  const target = join(stage, pkg.host, files.kind === "zip" ? `${pkg.name}.zip` : pkg.name);
  mkdirSync(dirname(target), { recursive: true });
  if (files.kind === "zip") copyFileSync(files.path, target);
  else cpSync(files.path, target, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
  return file;
}

/** The names of a host's manifests there are, by their folded form. */
function existingNames(catalogueDir: string, host: string): Map<string, string> {
  const dir = join(catalogueDir, host);
  const names = new Map<string, string>();
  if (!existsSync(dir)) return names;
  for (const file of readdirSync(dir)) {
    if (!file.endsWith(MANIFEST_EXTENSION)) continue;
    const name = file.slice(0, -MANIFEST_EXTENSION.length);
    names.set(foldCase(name), name);
  }
  return names;
}
