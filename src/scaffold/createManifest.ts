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
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { FILES_FIELDS, type Manifest } from "../catalogue/fields.js";
import { nameProblem, NAME_RULE, RESERVED_NAME_RULE } from "../catalogue/names.js";
import { isError, type Problem } from "../catalogue/problems.js";
import type { MetaXml } from "../packageFiles/parseMetaXml.js";
import { FROM_META } from "../packageFiles/mergeDerived.js";
import { readPackageFiles } from "../packageFiles/readPackageFiles.js";
import { schemaValidators } from "../catalogue/schemas.js";
import { manifestText } from "../catalogue/manifestFile.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { FailureError, UsageError } from "../util/errors.js";
import { HOSTS_FILE, MANIFEST_EXTENSION, MAX_SOURCE_BYTES, validateHostsFile } from "../validate/catalogueRules.js";

/** Where a project's editor finds shopfront's schemas: the installed package, relative to the project folder. */
export const SCHEMA_FOLDER = "node_modules/shopfront/schemas";

/** The fields whose template values only stand in for the real ones. */
export const FILL_IN: readonly (keyof Manifest)[] = [
  "display_name",
  "coder",
  "short_description",
  "long_description",
  "version",
  "extracted",
  "zip_size",
];

/** Fields whose template values are real but may well be wrong for the package. */
export const CHECK: readonly (keyof Manifest)[] = ["category", "package_type", "controllers"];

/**
 * A manifest for `name` released and updated at `nowSeconds`, its `$schema` pointing at `schema`.
 * The text placeholders are in angle brackets, so a client showing them makes the omission plain.
 */
export function manifestTemplate(name: string, nowSeconds: number, schema: string): string {
  const manifest: Manifest & { $schema: string } = {
    $schema: schema,
    category: "utilities",
    coder: "<coder>",
    contributors: "",
    controllers: "w",
    display_name: "<display name>",
    extracted: 0,
    internal_name: name,
    long_description: "<what the package does and how to use it; may span lines>",
    package_type: "dol",
    release_date: nowSeconds,
    short_description: "<one line about the package>",
    updated: nowSeconds,
    version: "<version>",
    zip_size: 0,
  };
  return manifestText(manifest);
}

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
   * A package's files to copy into the catalogue: a zip (to HOST/NAME.zip) or a folder holding the
   * SD card tree (to HOST/NAME/). The manifest is then filled from meta.xml and the files.
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
}

/**
 * A manifest for a package with files: what meta.xml says where it says it, the template's
 * placeholders elsewhere; zip_size, extracted and package_type left out, for the build derives them.
 */
export function manifestFromFiles(
  name: string,
  nowSeconds: number,
  schema: string,
  meta: MetaXml | undefined,
): { text: string; fillIn: (keyof Manifest)[] } {
  const template = JSON.parse(manifestTemplate(name, nowSeconds, schema)) as Record<string, unknown>;
  const fillIn: (keyof Manifest)[] = [];
  for (const [field, metaField] of FROM_META) {
    const value = meta?.[metaField];
    if (value !== undefined && value !== "") template[field] = value;
    else fillIn.push(field);
  }
  if (meta?.release_date !== undefined) template.release_date = meta.release_date;
  for (const field of FILES_FIELDS) delete template[field];
  return { text: manifestText(template as unknown as Manifest), fillIn };
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
  const kind = filesKind(options.from!);
  const manifestPath = join(catalogueDir, file);
  const files = kind === "zip" ? `${host}/${name}.zip` : `${host}/${name}/`;
  const filesPath = join(catalogueDir, host, kind === "zip" ? `${name}.zip` : name);
  for (const path of [manifestPath, join(catalogueDir, host, `${name}.zip`), join(catalogueDir, host, name)]) {
    if (existsSync(path)) throw new FailureError(`${path} exists; nothing was written`);
  }
  mkdirSync(join(catalogueDir, host), { recursive: true });
  if (kind === "zip") copyFileSync(options.from!, filesPath, constants.COPYFILE_EXCL);
  else cpSync(options.from!, filesPath, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
  const workDir = mkdtempSync(join(tmpdir(), "shopfront-new-"));
  try {
    const read = await readPackageFiles(catalogueDir, host, name, { workDir });
    const problems = [...hostProblems, ...read.problems];
    if (!read.derived || problems.some(isError)) {
      rmSync(filesPath, { recursive: true, force: true });
      return { problems };
    }
    const { text, fillIn } = manifestFromFiles(name, nowSeconds, schema, read.derived.meta);
    writeFileSync(manifestPath, text, { flag: "wx" });
    return { problems, file, files, fillIn };
  } catch (e) {
    rmSync(filesPath, { recursive: true, force: true });
    throw e;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
