// The schemas themselves: they compile, the TypeScript field tables agree with them, every pattern
// has a readable message, and the name rule accepts real names and refuses dangerous ones.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PATTERN_MESSAGES } from "../../src/validate/describeSchemaError.js";
import {
  COMPUTED_FIELDS,
  FILES_FIELDS,
  HOST_FIELDS,
  MANIFEST_FIELDS,
  PACKAGE_FIELDS,
  REQUIRED_MANIFEST_FIELDS,
  TODAY_FIELDS,
} from "../../src/catalogue/fields.js";
import { isValidName, NAME_PATTERN } from "../../src/catalogue/names.js";
import {
  readSchema,
  SCHEMA_DIR,
  SCHEMA_FILES,
  schemaValidators,
  type SchemaName,
} from "../../src/catalogue/schemas.js";
import { FIXTURES, manifest, ROOT } from "../support/helpers.js";

type JsonSchema = {
  properties?: Record<string, JsonSchema>;
  required?: string[];
  type?: string;
  $ref?: string;
  items?: JsonSchema;
};

/** The JSON type a property of a schema accepts, following $refs within the schema files. */
function typeOf(schema: JsonSchema, file: string): string | undefined {
  if (schema.type) return schema.type;
  if (!schema.$ref) return (schema as { enum?: unknown[] }).enum ? "string" : undefined;
  const [refFile, pointer = ""] = schema.$ref.split("#");
  const target = refFile || file;
  let node: unknown = JSON.parse(readFileSync(new URL(target, SCHEMA_DIR), "utf8"));
  for (const token of pointer.split("/").filter(Boolean)) node = (node as Record<string, unknown>)[token];
  return typeOf(node as JsonSchema, target);
}

function fieldTypes(
  name: SchemaName,
  at: (s: JsonSchema) => JsonSchema = (s) => s,
): Record<string, string | undefined> {
  const schema = at(readSchema(name) as JsonSchema);
  return Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([k, v]) => [k, typeOf(v, SCHEMA_FILES[name])]),
  );
}

describe("schemas", () => {
  it("every file in schemas/ is registered and compiles in strict mode", async () => {
    expect(readdirSync(join(ROOT, "schemas")).sort()).toEqual(Object.values(SCHEMA_FILES).sort());
    const validators = await schemaValidators();
    for (const name of Object.keys(SCHEMA_FILES)) expect(typeof validators[name as SchemaName]).toBe("function");
  });

  it("the TypeScript field tables agree with the schemas", () => {
    expect(fieldTypes("manifest")).toEqual({ ...MANIFEST_FIELDS, ...TODAY_FIELDS });
    expect((readSchema("manifest") as JsonSchema).required?.sort()).toEqual([...REQUIRED_MANIFEST_FIELDS].sort());
    expect(Object.keys(MANIFEST_FIELDS).filter((f) => !REQUIRED_MANIFEST_FIELDS.includes(f as never))).toEqual([
      ...FILES_FIELDS,
    ]);
    expect(fieldTypes("package")).toEqual({ ...MANIFEST_FIELDS, ...COMPUTED_FIELDS });
    expect((readSchema("package") as JsonSchema).required?.sort()).toEqual(Object.keys(PACKAGE_FIELDS).sort());
    expect(Object.keys(PACKAGE_FIELDS)).toHaveLength(16);
    const hostItem = (s: JsonSchema) => s.properties!.hosts!.items!;
    expect(fieldTypes("hostsFile", hostItem)).toEqual(HOST_FIELDS);
  });

  it("every pattern in the schemas has a readable message", () => {
    const patterns: string[] = [];
    const walk = (node: unknown, path: string, insideNot: boolean): void => {
      if (node === null || typeof node !== "object") return;
      for (const [key, value] of Object.entries(node)) {
        if (key === "pattern" && !insideNot) patterns.push(path + "/pattern");
        walk(value, `${path}/${key}`, insideNot || key === "not");
      }
    };
    for (const name of Object.keys(SCHEMA_FILES)) walk(readSchema(name as SchemaName), "", false);
    expect(patterns.length).toBeGreaterThan(0);
    for (const pattern of patterns) expect(PATTERN_MESSAGES, pattern).toHaveProperty([pattern]);
  });

  it("a valid manifest passes and the package schema requires the computed fields", async () => {
    const v = await schemaValidators();
    expect(v.manifest(manifest("ok"))).toBe(true);
    expect(v.package(manifest("ok"))).toBe(false);
    expect(v.package({ ...manifest("ok"), downloads: 0, rating: "" })).toBe(true);
    expect(v.packages([{ ...manifest("ok"), downloads: 0, rating: "" }])).toBe(true);
    expect(v.error({ error: "not_found", message: "x" })).toBe(true);
  });
});

describe("the name rule", () => {
  const valid = [
    "240pSuite",
    "usbloader_gx",
    "Achtung_Wii_Kurve",
    "a",
    "_",
    "x.y",
    "v1.0-beta",
    "primary",
    "themes",
    "a".repeat(64),
    "CONSOLE",
    "nullptr",
    "com10",
    "lpt",
    "config.json",
  ];
  const invalid = [
    "",
    ".",
    "..",
    ".hidden",
    "-flag",
    "trailing.",
    "a/b",
    "a\\b",
    "%2e%2e",
    "a b",
    "é",
    "a".repeat(65),
    "con",
    "CON",
    "Con",
    "nul.txt",
    "NUL.tar.gz",
    "com1",
    "COM9",
    "lpt0",
    "aux",
    "prn.json",
    "a\u0000b",
    "a\nb",
  ];

  it.each(valid)("accepts %j", (name) => expect(isValidName(name)).toBe(true));
  it.each(invalid)("refuses %j", (name) => expect(isValidName(name)).toBe(false));

  it("accepts every real application name of the Open Shop Channel", () => {
    const names = readFileSync(join(FIXTURES, "osc-app-names.txt"), "utf8").split("\n").filter(Boolean);
    expect(names.length).toBe(294);
    expect(names.filter((n) => !isValidName(n))).toEqual([]);
  });

  it("is one expression without look-around, usable by PCRE, RE2 and JavaScript alike", () => {
    expect(NAME_PATTERN).not.toMatch(/\(\?[=!<]/);
    expect(NAME_PATTERN.startsWith("^") && NAME_PATTERN.endsWith("$")).toBe(true);
  });
});

describe("docs/catalogue.md", () => {
  it("lists every problem code", async () => {
    const { PROBLEM_CODES } = await import("../../src/catalogue/problems.js");
    const doc = readFileSync(join(ROOT, "docs", "catalogue.md"), "utf8");
    for (const code of Object.keys(PROBLEM_CODES)) expect(doc, code).toContain(`| \`${code}\` |`);
  });
});
