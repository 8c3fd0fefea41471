// `shopfront new HOST/NAME`: a new manifest from a template whose values pass validation but are
// plainly placeholders, stamped with the current time. manifestTemplate is pure; createManifest
// checks the name and the host and writes the file, never over an existing one.
import {
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve, sep } from "node:path";
import type { Manifest } from "../catalogue/fields.js";
import { manifestTemplate } from "../catalogue/manifestTemplate.js";
import { nameProblem, NAME_RULE, RESERVED_NAME_RULE } from "../catalogue/names.js";
import { isError, type Problem } from "../catalogue/problems.js";
import { isAppFolder, newestEntryTime, newestFileTime, stageAppFolder } from "../packageFiles/appFolder.js";
import { guessedDateMessage, guessReleaseDate } from "../packageFiles/guessReleaseDate.js";
import { manifestFromFiles } from "../packageFiles/manifestFromFiles.js";
import { readPackageFiles } from "../packageFiles/readPackageFiles.js";
import { schemaValidators } from "../catalogue/schemas.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { readReleaseDates } from "../read/readReleaseDates.js";
import { FailureError, UsageError } from "../util/errors.js";
import { HOSTS_FILE, MANIFEST_EXTENSION, MAX_SOURCE_BYTES, validateHostsFile } from "../validate/catalogueRules.js";

/** Where a project's editor finds shopfront's schemas: the installed package, relative to the project folder. */
export const SCHEMA_FOLDER = "node_modules/shopfront/schemas";

/** The path of `to` as a `$schema` value in a file of `fromDir`: relative, with `/`. */
function schemaReference(fromDir: string, to: string): string {
  const path = relative(resolve(fromDir), resolve(to)).split(sep).join("/");
  return path.startsWith(".") ? path : `./${path}`;
}

export interface CreateManifestOptions {
  catalogueDir: string;
  host: string;
  name: string;
  /** The project folder, whose node_modules holds shopfront's schemas. */
  projectDir: string;
  /** The wall clock (tests fix it). */
  now?: () => number;
  /**
   * A package's files to copy into the catalogue: a zip (to HOST/NAME.zip), a folder holding the
   * SD card tree (to HOST/NAME/), or an app's own folder (to HOST/NAME/apps/NAME/). The manifest is
   * then filled from meta.xml and the files.
   */
  from?: string;
}

export interface CreateManifestResult {
  /** Problems of hosts.json, or of the package files given (`from`): with an error, nothing was written. */
  problems: Problem[];
  /** The manifest written, relative to the catalogue folder. */
  file?: string;
  /** With `from`: the package files copied, relative to the catalogue folder (`HOST/NAME.zip` or `HOST/NAME/`). */
  files?: string;
  /** With `from`: the fields the manifest still needs filled in by hand. */
  fillIn?: (keyof Manifest)[];
  /** With `from` an app folder without meta.xml: the meta.xml written into the package, to complete. */
  metaWritten?: { file: string; text: string };
  /** With `from` an app folder of another name: its name, for the app's path on the SD card changes. */
  renamedFrom?: string;
  /** What the app wrote in its folder for its user, left out of the package: each entry and what it is. */
  leftOut?: { entry: string; what: string }[];
}

/** Writes catalogue/HOST/NAME.json from the template. A bad name or host is a usage error; an existing file a failure. */
export async function createManifest(options: CreateManifestOptions): Promise<CreateManifestResult> {
  const { catalogueDir, host, name } = options;
  const nameCode = nameProblem(name);
  if (nameCode)
    throw new UsageError(
      `${JSON.stringify(name)} cannot be a package name: ${nameCode === "INVALID_NAME" ? NAME_RULE : RESERVED_NAME_RULE}`,
    );
  if (!existsSync(catalogueDir) || !statSync(catalogueDir).isDirectory())
    throw new UsageError(`cannot read the catalogue ${catalogueDir}: there is no such folder`);
  const hostsPath = join(catalogueDir, HOSTS_FILE);
  const hosts = validateHostsFile(
    existsSync(hostsPath) ? readSourceFile(hostsPath, MAX_SOURCE_BYTES) : undefined,
    await schemaValidators(),
  );
  if (!hosts.hostsFile) return { problems: hosts.problems };
  const declared = hosts.hostsFile.hosts.map((h) => h.id);
  if (!declared.includes(host))
    throw new UsageError(
      `host ${JSON.stringify(host)} is not declared in ${HOSTS_FILE} (declared: ${declared.join(", ")})`,
    );
  const file = `${host}/${name}${MANIFEST_EXTENSION}`;
  const folder = join(catalogueDir, host);
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  const schema = schemaReference(folder, join(options.projectDir, SCHEMA_FOLDER, "manifest.schema.json"));
  if (options.from !== undefined) return createWithFiles(options, file, nowSeconds, schema, hosts.problems);
  const text = manifestTemplate(name, nowSeconds, schema);
  try {
    // A declared host may not have its folder yet. wx: never over a file that exists.
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(catalogueDir, file), text, { flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST")
      throw new FailureError(`${join(catalogueDir, file)} exists; nothing was written`);
    throw e;
  }
  return { problems: hosts.problems, file };
}

/** What `from` is: a zip file or a folder; anything else is a usage error. */
function filesKind(from: string): "zip" | "folder" {
  let stats;
  try {
    stats = statSync(from);
  } catch {
    throw new UsageError(`cannot read ${from}: there is no such file or folder`);
  }
  if (stats.isDirectory()) return "folder";
  if (stats.isFile()) return "zip";
  throw new UsageError(`${from} is neither a zip file nor a folder`);
}

/** Where the folder `from` has the app: it is the app's folder, or a tree holding apps/NAME/; else a usage error saying what was looked for. */
function folderForm(from: string, name: string): "app" | "tree" {
  if (isAppFolder(from)) return "app";
  const entries = readdirSync(from, { withFileTypes: true }).filter((e) => !e.name.startsWith("."));
  const apps = entries.find((e) => e.isDirectory() && e.name.toLowerCase() === "apps");
  const inApps = apps
    ? readdirSync(join(from, apps.name), { withFileTypes: true }).filter(
        (e) => e.isDirectory() && !e.name.startsWith("."),
      )
    : [];
  if (inApps.some((e) => e.name.toLowerCase() === name.toLowerCase())) return "tree";
  const looked = `${from} is neither an app's folder (it holds no boot.dol, boot.elf or meta.xml) nor an SD card tree holding apps/${name}/`;
  const hint =
    inApps.length > 0
      ? `its apps/ holds ${inApps.map((e) => `${e.name}/`).join(", ")}: give the app's folder, --from ${join(from, apps!.name, inApps[0]!.name)}`
      : entries.some((e) => e.isDirectory() && isAppFolder(join(from, e.name)))
        ? `it holds app folders: give one, --from ${join(from, entries.find((e) => e.isDirectory() && isAppFolder(join(from, e.name)))!.name)}, or import them all with npx shopfront import apps ${from}`
        : "give the folder that holds the app's boot.dol (or boot.elf) and meta.xml";
  throw new UsageError(`${looked}; ${hint}`);
}

/**
 * Copies the package files into the catalogue, checks them as a build would, and writes the manifest
 * filled from them. Files that fail the check are removed again: nothing is left written.
 */
async function createWithFiles(
  options: CreateManifestOptions,
  file: string,
  nowSeconds: number,
  schema: string,
  hostProblems: Problem[],
): Promise<CreateManifestResult> {
  const { catalogueDir, host, name } = options;
  const from = options.from!;
  const kind = filesKind(from);
  const form = kind === "folder" ? folderForm(from, name) : "zip";
  const manifestPath = join(catalogueDir, file);
  const files = kind === "zip" ? `${host}/${name}.zip` : `${host}/${name}/`;
  const filesPath = join(catalogueDir, host, kind === "zip" ? `${name}.zip` : name);
  for (const path of [manifestPath, join(catalogueDir, host, `${name}.zip`), join(catalogueDir, host, name)]) {
    if (existsSync(path)) throw new FailureError(`${path} exists; nothing was written`);
  }
  mkdirSync(join(catalogueDir, host), { recursive: true });
  const result: Partial<CreateManifestResult> = {};
  if (form === "zip") copyFileSync(from, filesPath, constants.COPYFILE_EXCL);
  else if (form === "tree")
    cpSync(from, filesPath, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
  else {
    const folderName = basename(resolve(from));
    const staged = stageAppFolder(from, name, filesPath, folderName);
    if (staged.metaWritten !== undefined)
      result.metaWritten = { file: `${host}/${name}/apps/${name}/meta.xml`, text: staged.metaWritten };
    if (folderName !== name) result.renamedFrom = folderName;
    if (staged.leftOut.length > 0) result.leftOut = staged.leftOut;
  }
  const workDir = mkdtempSync(join(tmpdir(), "shopfront-new-"));
  try {
    const read = await readPackageFiles(catalogueDir, host, name, { workDir });
    const problems = [...hostProblems, ...read.problems];
    if (!read.derived || problems.some(isError)) {
      rmSync(filesPath, { recursive: true, force: true });
      return { problems };
    }
    const meta = read.derived.meta;
    let released = meta?.release_date;
    if (released === undefined) {
      const newest = form === "zip" ? await newestEntryTime(from) : newestFileTime(from);
      const guess = guessReleaseDate(newest, readReleaseDates(catalogueDir, host), nowSeconds);
      released = guess.date;
      const metaFile =
        kind === "zip" ? `${files} (${read.derived.metaEntry ?? "meta.xml"})` : `${files}${read.derived.metaEntry}`;
      const unreadable = read.problems.some((p) => p.code === "META_BAD_DATE");
      problems.push({
        code: "RELEASE_DATE_GUESSED",
        severity: "warning",
        file: kind === "zip" ? files : `${files}${read.derived.metaEntry}`,
        pointer: "",
        message: guessedDateMessage(unreadable ? "unreadable" : "missing", metaFile, file, guess),
      });
    }
    const { text, fillIn } = manifestFromFiles(name, schema, meta, released, meta?.release_date === undefined);
    writeFileSync(manifestPath, text, { flag: "wx" });
    return { ...result, problems, file, files, fillIn };
  } catch (e) {
    rmSync(filesPath, { recursive: true, force: true });
    throw e;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
