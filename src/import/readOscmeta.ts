// The Open Shop Channel's app repository (OpenShopChannel/Apps) -> what `shopfront import oscmeta`
// writes. The I/O around parseOscmeta.ts: read DIR/contents/*.oscmeta and DIR/repository.json, check
// each file by the repository's schema (schemas/oscmeta.schema.json), find each app's package files
// in the folder given and read its meta.xml from them. The repository holds no package files (its
// server fetches each app's source and treats it); shopfront fetches nothing, so they come from a
// folder: `<name>.zip`, an SD card tree `<name>/apps/<name>/`, or a Homebrew Browser mirror
// `hbb/<name>/<name>.zip`.
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import type { HostInfo } from "../catalogue/fields.js";
import { isValidName, NAME_RULE } from "../catalogue/names.js";
import { finding, inFile, isError, type Finding, type Problem } from "../catalogue/problems.js";
import { schemaValidators } from "../catalogue/schemas.js";
import type { PackageFinding } from "../packageFiles/checkZipEntries.js";
import { inspectPackageZip, type DerivedFiles, type PackageZipReport } from "../packageFiles/inspectPackageZip.js";
import { zipAndCheckFolder } from "../packageFiles/checkFolderZip.js";
import { DEFAULT_ZIP_LIMITS } from "../packageFiles/zipLimits.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { compareCodePoints } from "../util/codePoints.js";
import { UsageError } from "../util/errors.js";
import { parseJson } from "../validate/parseJson.js";
import { HOSTS_FILE, MANIFEST_EXTENSION, MAX_SOURCE_BYTES, validateJsonFile } from "../validate/catalogueRules.js";
import { notCarriedFields, oscmetaManifest, type Oscmeta } from "./parseOscmeta.js";
import type { ImportedPackage, ImportSource, SkippedEntry } from "./writeImport.js";

const CONTENTS = "contents";
const EXTENSION = ".oscmeta";
const REPOSITORY_FILE = "repository.json";

export interface ReadOscmetaOptions {
  /** The repository's folder: it holds contents/ and repository.json. */
  dir: string;
  /** Where the package files are (default: `dir`). */
  filesDir?: string;
  /** The host the apps become packages of. */
  host: string;
  /** The catalogue written into: problems name files relative to it, and its manifests keep their release dates. */
  catalogueDir: string;
  /** The wall clock, for a release date nothing else gives (tests fix it). */
  now?: () => number;
}

/** What the repository is, or the problems of its files: then nothing is imported. */
export type OscmetaRead = { problems: Problem[]; source?: ImportSource };

/** The package files found for an app, with what they say. */
export type FoundFiles =
  { kind: "zip" | "folder"; path: string; derived: DerivedFiles } | { missing: string[] } | { refused: string[] };

/** The places an app's files are looked for, in order: the first that exists is used. */
function candidates(filesDir: string, name: string): { kind: "zip" | "folder"; path: string }[] {
  return [
    { kind: "zip", path: join(filesDir, `${name}.zip`) },
    { kind: "folder", path: join(filesDir, name) },
    { kind: "zip", path: join(filesDir, name, `${name}.zip`) },
    { kind: "zip", path: join(filesDir, "hbb", name, `${name}.zip`) },
  ];
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** A folder is an SD card tree when it holds apps/<name>/. */
function isTree(path: string, name: string): boolean {
  const app = join(path, "apps", name);
  return existsSync(app) && statSync(app).isDirectory();
}

function describeFinding(f: PackageFinding): string {
  return `${f.entry !== undefined ? `${f.entry}: ` : ""}${f.message} (${f.code})`;
}

/** Finds and checks app `name`'s package files as a build would, reading them where they are. */
export async function findOscmetaFiles(filesDir: string, name: string, workDir: string): Promise<FoundFiles> {
  const places = candidates(filesDir, name);
  const found = places.find((c) => (c.kind === "zip" ? isFile(c.path) : isTree(c.path, name)));
  if (!found) return { missing: places.map((c) => (c.kind === "folder" ? join(c.path, "apps", name, sep) : c.path)) };
  let report: PackageZipReport;
  if (found.kind === "folder") {
    // The folder is copied as it is: a link would be copied as a link, pointing anywhere.
    if (lstatSync(found.path).isSymbolicLink())
      return { refused: [`${found.path} is a symbolic link (not followed: it could point outside)`] };
    const zipped = await zipAndCheckFolder(found.path, join(workDir, `${name}.zip`), name, {
      limits: DEFAULT_ZIP_LIMITS,
    });
    if (!zipped.report) return { refused: zipped.findings.filter(isError).map(describeFinding) };
    report = zipped.report;
  } else report = await inspectPackageZip(found.path, name);
  const errors = report.findings.filter(isError);
  if (errors.length > 0 || !report.derived) return { refused: errors.map(describeFinding) };
  return { kind: found.kind, path: found.path, derived: report.derived };
}

/** A path relative to the catalogue folder, `/`-separated, as problems name files. */
function fileFor(catalogueDir: string, path: string): string {
  return relative(resolve(catalogueDir), resolve(path)).split(sep).join("/");
}

/** repository.json's name and description for the host, or the problems of the file. */
function readRepository(
  dir: string,
  catalogueDir: string,
): { details?: Partial<HostInfo>; provider?: unknown; problems: Problem[] } {
  const path = join(dir, REPOSITORY_FILE);
  if (!existsSync(path)) return { problems: [] };
  const source = readSourceFile(path, MAX_SOURCE_BYTES);
  const findings: Finding[] = [];
  let value: unknown;
  if ("bytes" in source) {
    const parsed = parseJson(source.bytes);
    findings.push(...parsed.findings);
    value = parsed.value;
  } else findings.push(finding("UNREADABLE", "", `cannot be read: ${"error" in source ? source.error : "too large"}`));
  const details: { -readonly [K in keyof HostInfo]?: HostInfo[K] } = {};
  if (value !== undefined) {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      findings.push(finding("WRONG_TYPE", "", "must be an object with name, provider and description"));
    else
      for (const field of ["name", "description"] as const) {
        const text = (value as Record<string, unknown>)[field];
        if (text === undefined) continue;
        if (typeof text !== "string") findings.push(finding("WRONG_TYPE", `/${field}`, "must be string"));
        else details[field] = text;
      }
  }
  const problems = inFile(fileFor(catalogueDir, path), findings);
  if (problems.some(isError)) return { problems };
  return { details, provider: (value as Record<string, unknown>).provider, problems };
}

/** The release date a manifest already in the catalogue has, kept when it is imported again (`--force`). */
function existingRelease(catalogueDir: string, host: string, name: string): number | undefined {
  const source = readSourceFile(join(catalogueDir, host, `${name}${MANIFEST_EXTENSION}`), MAX_SOURCE_BYTES);
  if (!("bytes" in source)) return undefined;
  const value = parseJson(source.bytes).value as { release_date?: unknown } | undefined;
  const date = value?.release_date;
  return typeof date === "number" && Number.isInteger(date) && date >= 0 ? date : undefined;
}

/** Reads the repository at `dir`: its apps as packages of `host`, or the problems that refuse it. */
export async function readOscmeta(options: ReadOscmetaOptions): Promise<OscmetaRead> {
  const { dir, host, catalogueDir } = options;
  const filesDir = options.filesDir ?? dir;
  if (!isValidName(host)) throw new UsageError(`host ${JSON.stringify(host)} cannot be a host id: ${NAME_RULE}`);
  const contents = join(dir, CONTENTS);
  if (!existsSync(contents) || !statSync(contents).isDirectory())
    throw new UsageError(`${dir} has no ${CONTENTS}/ folder: it is not an Open Shop Channel app repository`);
  if (!existsSync(filesDir) || !statSync(filesDir).isDirectory())
    throw new UsageError(`cannot read the package files: ${filesDir} is no folder`);

  const validators = await schemaValidators();
  const problems: Problem[] = [];
  const repository = readRepository(dir, catalogueDir);
  problems.push(...repository.problems);

  const entries = readdirSync(contents).sort(compareCodePoints);
  const others = entries.filter((e) => !e.endsWith(EXTENSION));
  const apps: { name: string; oscmeta: Oscmeta }[] = [];
  for (const entry of entries.filter((e) => e.endsWith(EXTENSION))) {
    const path = join(contents, entry);
    if (!lstatSync(path).isFile()) {
      others.push(entry);
      continue;
    }
    const file = fileFor(catalogueDir, path);
    const { value, findings } = validateJsonFile(readSourceFile(path, MAX_SOURCE_BYTES), validators.oscmeta);
    problems.push(...inFile(file, findings));
    if (value !== undefined) apps.push({ name: entry.slice(0, -EXTENSION.length), oscmeta: value as Oscmeta });
  }
  if (problems.some(isError)) return { problems };

  const now = Math.floor((options.now ?? Date.now)() / 1000);
  const packages: ImportedPackage[] = [];
  const skipped: SkippedEntry[] = [];
  const notCarriedOver = new Map<string, number>();
  const workDir = mkdtempSync(join(tmpdir(), "shopfront-oscmeta-"));
  try {
    for (const { name, oscmeta } of apps) {
      const source = `${CONTENTS}/${name}${EXTENSION}`;
      const entry = { source, host, name };
      for (const field of notCarriedFields(oscmeta)) notCarriedOver.set(field, (notCarriedOver.get(field) ?? 0) + 1);
      if (!isValidName(name)) {
        skipped.push({
          ...entry,
          reasons: [`its name ${JSON.stringify(name)} cannot be a package name: ${NAME_RULE}`],
        });
        continue;
      }
      const files = await findOscmetaFiles(filesDir, name, workDir);
      if ("missing" in files) {
        skipped.push({ ...entry, reasons: [`its package files are missing: none of ${files.missing.join(", ")}`] });
        continue;
      }
      if ("refused" in files) {
        skipped.push({ ...entry, reasons: files.refused.map((r) => `its package files: ${r}`) });
        continue;
      }
      const mapped = oscmetaManifest(
        name,
        oscmeta,
        files.derived.meta,
        existingRelease(catalogueDir, host, name) ?? now,
      );
      if (mapped.reasons.length > 0) {
        skipped.push({ ...entry, reasons: mapped.reasons });
        continue;
      }
      packages.push({ ...entry, manifest: mapped.manifest, files: { kind: files.kind, path: files.path } });
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }

  const notes: string[] = [];
  if (others.length > 0)
    notes.push(
      `${CONTENTS}/ holds ${others.length === 1 ? "an entry" : `${others.length} entries`} that ${others.length === 1 ? "is" : "are"} no .oscmeta file, ignored as the Open Shop Channel's server ignores ${others.length === 1 ? "it" : "them"}: ${others.join(", ")}`,
    );
  if (repository.provider !== undefined)
    notes.push(`${REPOSITORY_FILE}'s provider is not carried over: a host in ${HOSTS_FILE} has no such field`);
  if (!existsSync(join(dir, REPOSITORY_FILE)))
    notes.push(`${dir} has no ${REPOSITORY_FILE}: host ${host}, if new, is declared with placeholders`);
  return {
    problems,
    source: {
      hostIds: [host],
      ...(repository.details ? { hostDetails: new Map([[host, repository.details]]) } : {}),
      packages,
      skipped,
      notCarriedOver,
      notes,
    },
  };
}
