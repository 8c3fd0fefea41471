// Loads the JSON Schemas in schemas/ (the source of truth) and turns them into validators, once.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction } from "ajv";

export const SCHEMA_DIR = new URL("../../schemas/", import.meta.url);

export const SCHEMA_FILES = {
  manifest: "manifest.schema.json",
  hostsFile: "hosts-file.schema.json",
  package: "package.schema.json",
  packages: "packages.schema.json",
  hosts: "hosts.schema.json",
  error: "error.schema.json",
  stats: "stats.schema.json",
  config: "config.schema.json",
  oscmeta: "oscmeta.schema.json",
  information: "information.schema.json",
  v4App: "v4-app.schema.json",
  v4Contents: "v4-contents.schema.json",
  v3App: "v3-app.schema.json",
  v3Contents: "v3-contents.schema.json",
  diff: "diff.schema.json",
} as const;

export type SchemaName = keyof typeof SCHEMA_FILES;
export type SchemaObject = Record<string, unknown>;

let texts: Map<SchemaName, string> | undefined;

/** The schema files' text, read once. Their bytes are part of what a build depends on. */
export function schemaTexts(): ReadonlyMap<SchemaName, string> {
  texts ??= new Map(
    Object.entries(SCHEMA_FILES).map(([name, file]) => [name as SchemaName, readFileSync(new URL(file, SCHEMA_DIR), "utf8")]),
  );
  return texts;
}

export function readSchema(name: SchemaName): SchemaObject {
  return JSON.parse(schemaTexts().get(name)!) as SchemaObject;
}

export type Validators = Record<SchemaName, ValidateFunction>;
export type SchemaError = ErrorObject;

/** A hash of the schema files' text: precompiled validators are used only while it matches. */
export function schemaHash(): string {
  const hash = createHash("sha256");
  for (const [name, text] of schemaTexts()) hash.update(`\0${name}\0${text}`);
  return hash.digest("hex");
}

/** One strict ajv instance with allErrors holding every schema, registered under its file name so relative $refs resolve as in an editor. */
async function createAjv(standalone: boolean) {
  const { Ajv2020 } = await import("ajv/dist/2020.js");
  const ajv = new Ajv2020({ strict: true, allErrors: true, verbose: true, ...(standalone ? { code: { source: true } } : {}) });
  for (const [name, file] of Object.entries(SCHEMA_FILES)) ajv.addSchema(readSchema(name as SchemaName), file);
  return ajv;
}

/**
 * The validators compiled to a CommonJS module, for `npm install` to write to lib/validators.cjs.
 * (ajv's standalone ESM output still require()s its runtime, so the module is CommonJS.)
 */
export async function precompiledValidatorsSource(): Promise<string> {
  // A CommonJS module: under nodenext its default import is module.exports, whose .default is the function.
  const { default: standalone } = await import("ajv/dist/standalone/index.js");
  const code = standalone.default(await createAjv(true), SCHEMA_FILES);
  return `${code}\nexports.schemaHash = ${JSON.stringify(schemaHash())};\n`;
}

/** The validators precompiled at install time, unless the schemas have changed since (or they were never made). */
function precompiledValidators(): Validators | undefined {
  let module: Partial<Validators> & { schemaHash?: string };
  try {
    module = createRequire(import.meta.url)("../validators.cjs") as typeof module;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND") return undefined;
    throw e;
  }
  return module.schemaHash === schemaHash() ? (module as Validators) : undefined;
}

let compiled: Promise<Validators> | undefined;

/**
 * Every schema as a validator (strict, all errors). Validators precompiled at install time load in
 * milliseconds; after a maintainer edits schemas/, or when running from source, ajv compiles them,
 * imported on first use so that a rebuild with no changed input never loads it.
 */
export function schemaValidators(): Promise<Validators> {
  compiled ??= (async () => {
    const precompiled = precompiledValidators();
    if (precompiled) return precompiled;
    const ajv = await createAjv(false);
    return Object.fromEntries(Object.entries(SCHEMA_FILES).map(([name, file]) => [name, ajv.getSchema(file)!])) as Validators;
  })();
  return compiled;
}
