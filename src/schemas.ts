// Loads the JSON Schemas in schemas/ (the source of truth) and compiles them with ajv, once.
import { readFileSync } from "node:fs";
import type { ErrorObject, ValidateFunction } from "ajv";

export const SCHEMA_DIR = new URL("../schemas/", import.meta.url);

export const SCHEMA_FILES = {
  manifest: "manifest.schema.json",
  hostsFile: "hosts-file.schema.json",
  package: "package.schema.json",
  packages: "packages.schema.json",
  hosts: "hosts.schema.json",
  error: "error.schema.json",
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

let compiled: Promise<Validators> | undefined;

/**
 * Every schema compiled by one strict ajv instance with allErrors. ajv is imported on first use, so
 * commands that validate nothing (a rebuild with no changed input) do not pay for loading it.
 */
export function schemaValidators(): Promise<Validators> {
  compiled ??= (async () => {
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    const ajv = new Ajv2020({ strict: true, allErrors: true, verbose: true });
    // Registered under their file names, so the schemas' relative $refs resolve the same way here
    // as in an editor that opens schemas/.
    for (const [name, file] of Object.entries(SCHEMA_FILES)) ajv.addSchema(readSchema(name as SchemaName), file);
    const entries = Object.entries(SCHEMA_FILES).map(([name, file]) => [name, ajv.getSchema(file)!] as const);
    return Object.fromEntries(entries) as Validators;
  })();
  return compiled;
}
