// `shopfront new HOST/NAME`: a new manifest from a template whose values pass validation but are
// plainly placeholders, stamped with the current time. manifestTemplate is pure; createManifest
// checks the name and the host and writes the file, never over an existing one.
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { Manifest } from "../catalogue/fields.js";
import { nameProblem, NAME_RULE, RESERVED_NAME_RULE } from "../catalogue/names.js";
import type { Problem } from "../catalogue/problems.js";
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
}

export interface CreateManifestResult {
  /** Problems of hosts.json that keep the host from being checked: nothing was written. */
  problems: Problem[];
  /** The manifest written, relative to the catalogue folder. */
  file?: string;
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
  const text = manifestTemplate(
    name,
    nowSeconds,
    schemaReference(folder, join(options.projectDir, SCHEMA_FOLDER, "manifest.schema.json")),
  );
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
