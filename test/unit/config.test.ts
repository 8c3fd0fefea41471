// shopfront.json and $schema: the settings give every command its defaults and the command line
// wins; an invalid file is reported with pointers; a build that drops the previous build's targets
// says so; and a $schema key in any catalogue file is accepted and never reaches the API.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { PACKAGE_FIELDS } from "../../src/catalogue/fields.js";
import { readSchema, schemaValidators } from "../../src/catalogue/schemas.js";
import { readConfig, validateConfig } from "../../src/config/readConfig.js";
import { OPENAPI_FILE } from "../../src/routes/routeTable.js";
import { TARGETS } from "../../src/targets/index.js";
import { copyFixture, manifest, readJson, readTree, shopfront, writeFiles } from "../support/helpers.js";
import { UNSIGNED_NOTE } from "../../src/cli/commands/build.js";

/** What a build without a signing key says on stderr (docs/trust.md). */
const UNSIGNED = `${UNSIGNED_NOTE}\n`;

/** A project folder holding a copy of the basic fixture as `catalogue/`, and `config` as shopfront.json. */
function project(config?: unknown): string {
  const cwd = join(copyFixture("basic"), "..");
  if (config !== undefined) writeFiles(cwd, { "shopfront.json": config });
  return cwd;
}

const bytes = (text: string) => ({ bytes: Buffer.from(text) });

describe("shopfront.json", () => {
  it("lists every target in its schema, in the order of TARGETS", () => {
    const schema = readSchema("config") as { properties: { targets: { items: { enum: string[] } } } };
    expect(schema.properties.targets.items.enum).toEqual(TARGETS.map((t) => t.id));
  });

  it("is validated into problems with pointers", async () => {
    const validators = await schemaValidators();
    expect(validateConfig(bytes('{"out": "site", "targets": ["netlify"]}'), validators)).toEqual({
      config: { out: "site", targets: ["netlify"] },
      problems: [],
    });
    const bad = validateConfig(
      bytes('{"out": "", "targets": ["netlfy", "netlify", "netlify"], "dir": "x"}'),
      validators,
    );
    expect(bad.config).toBeUndefined();
    expect(bad.problems.map((p) => [p.file, p.code, p.pointer])).toEqual([
      ["shopfront.json", "UNKNOWN_FIELD", "/dir"],
      ["shopfront.json", "BAD_LENGTH", "/out"],
      ["shopfront.json", "NOT_ALLOWED", "/targets/0"],
      // The repeat, named where it is (the first "netlify" is /targets/1).
      ["shopfront.json", "REPEATED_VALUE", "/targets/2"],
    ]);
    expect(validateConfig(bytes("{"), validators).problems.map((p) => p.code)).toEqual(["JSON_SYNTAX"]);
  });

  it("reads no settings when there is no file, and paths relative to its folder", async () => {
    const cwd = project();
    expect(await readConfig(cwd)).toEqual({ config: {}, problems: [] });
    writeFiles(cwd, { "shopfront.json": { $schema: "x", catalogue: "cat", out: "/abs/out" } });
    expect(await readConfig(cwd)).toEqual({
      config: { $schema: "x", catalogue: join(cwd, "cat"), out: "/abs/out" },
      problems: [],
    });
  });
});

describe("shopfront.json (the binary)", () => {
  it("gives build its catalogue, output and targets; the command line wins", () => {
    const cwd = project({ catalogue: "catalogue", out: "site", targets: ["netlify"] });
    expect(shopfront(cwd, "build")).toMatchObject({
      code: 0,
      stderr: UNSIGNED,
      stdout: expect.stringContaining("into site"),
    });
    expect([...readTree(join(cwd, "site")).keys()]).toEqual(expect.arrayContaining(["_headers", "_redirects"]));
    // A second plain build keeps the targets' files: the settings, not the memory of a flag, decide.
    expect(shopfront(cwd, "build")).toMatchObject({
      code: 0,
      stderr: UNSIGNED,
      stdout: expect.stringContaining("nothing changed"),
    });
    expect(existsSync(join(cwd, "site", "_redirects"))).toBe(true);

    const run = shopfront(cwd, "build", "--out", "other", "--target", "github-pages");
    expect(run).toMatchObject({ code: 0, stderr: UNSIGNED, stdout: expect.stringContaining("into other") });
    const other = readTree(join(cwd, "other"));
    expect(other.has(".nojekyll")).toBe(true);
    expect(other.has("_redirects")).toBe(false);
  });

  it("gives config its root, and validate and new their catalogue", () => {
    expect(shopfront(project({ out: "site" }), "config", "nginx").stdout).toMatch(/^\s*root ".*\/site";$/m);
    const cwd = project({ catalogue: "store" });
    expect(shopfront(cwd, "validate")).toMatchObject({
      code: 2,
      stderr: "error: cannot read the catalogue store: there is no such folder\n",
    });
    expect(shopfront(cwd, "validate", "--catalogue", "catalogue")).toMatchObject({ code: 0 });
    writeFiles(cwd, { "shopfront.json": { catalogue: "catalogue" } });
    expect(shopfront(cwd, "new", "primary/fresh")).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^wrote catalogue\/primary\/fresh\.json: fill in display_name, /),
    });
  });

  it("config writes its config quietly over a catalogue with warnings, and reports its errors", () => {
    const cwd = project({});
    writeFiles(join(cwd, "catalogue"), { "primary/240pTest.json": manifest("240pTest", { updated: 1 }) });
    expect(shopfront(cwd, "validate").stderr).toMatch(/UPDATED_BEFORE_RELEASE|earlier than/);
    const quiet = shopfront(cwd, "config", "nginx");
    expect(quiet).toMatchObject({ code: 0, stderr: "" });
    expect(quiet.stdout).toMatch(/^\s*root /m);
    writeFiles(join(cwd, "catalogue"), { "primary/240pTest.json": manifest("240pTest", { zip_size: "12" }) });
    const broken = shopfront(cwd, "config", "nginx");
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/240pTest\.json: \/zip_size must be integer/);
  });

  it("reports an invalid file with its pointers, exits 1 and does nothing", () => {
    const cwd = project({ catalogue: 3, targets: ["ngnix"] });
    const run = shopfront(cwd, "build");
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n")).toEqual([
      'shopfront.json: /catalogue must be string (is 3); write it as a string: "3"',
      'shopfront.json: /targets/0 must be one of "nginx", "apache", "caddy", "lighttpd", "cloudfront", "cloudflare", "netlify", "vercel", "github-pages" (is string "ngnix"); did you mean "nginx"?',
      "2 errors in 1 file",
      "error: shopfront.json is not valid: nothing was done",
      "",
    ]);
    expect(existsSync(join(cwd, "dist"))).toBe(false);
    // Commands that read no settings do not care.
    expect(shopfront(cwd, "--version").code).toBe(0);
  });

  it("a plain build over a build with targets says which files are gone", () => {
    const cwd = project();
    expect(shopfront(cwd, "build", "--target", "netlify").code).toBe(0);
    const run = shopfront(cwd, "build");
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      UNSIGNED +
        'note: the previous build had --target netlify and this one has none, so _redirects and _headers are gone; put "targets" in shopfront.json to build them every time\n',
    );
    expect(existsSync(join(cwd, "dist", "_redirects"))).toBe(false);
    // The next one has nothing to say.
    expect(shopfront(cwd, "build")).toMatchObject({ code: 0, stderr: UNSIGNED });
    expect(shopfront(cwd, "build", "--target", "github-pages", "--target", "netlify").stderr).toBe(UNSIGNED);
    expect(shopfront(cwd, "build", "--quiet", "--target", "netlify").stderr).toBe(
      'note: the previous build had --target github-pages and this one has --target netlify, so .nojekyll and 404.html are gone; put "targets" in shopfront.json to build them every time\n',
    );
  });
});

describe("$schema in catalogue files", () => {
  it("is accepted in manifests, hosts.json and stats files, and never reaches the API", async () => {
    const catalogueDir = copyFixture("basic");
    const hosts = readJson(join(catalogueDir, "hosts.json")) as Record<string, unknown>;
    writeFiles(catalogueDir, {
      "hosts.json": { $schema: "../schemas/hosts-file.schema.json", ...hosts },
      "primary/snake.json": { $schema: "../../schemas/manifest.schema.json", ...manifest("snake") },
      "stats/primary.json": { $schema: "../../schemas/stats.schema.json", packages: { snake: { downloads: 3 } } },
    });
    const out = join(catalogueDir, "..", "dist");
    const result = await buildCatalogue({ catalogueDir, outDir: out });
    expect(result.problems).toEqual([]);
    const tree = readTree(out);
    // The OpenAPI document embeds the schemas, whose rules name $schema; no response holds it, and
    // none of the catalogue's values reaches the document.
    for (const [path, content] of tree)
      if (path !== OPENAPI_FILE) expect(content.toString(), path).not.toContain("$schema");
    expect(tree.get(OPENAPI_FILE)!.toString()).not.toContain("schema.json");
    const snake = JSON.parse(tree.get("v1/primary/package/snake")!.toString()) as Record<string, unknown>;
    expect(Object.keys(snake).sort()).toEqual(Object.keys(PACKAGE_FIELDS).sort());
    expect(snake.downloads).toBe(3);
  });

  it("must be a string", async () => {
    const catalogueDir = copyFixture("basic");
    writeFiles(catalogueDir, { "primary/snake.json": { $schema: 1, ...manifest("snake") } });
    const result = await buildCatalogue({ catalogueDir, outDir: join(catalogueDir, "..", "dist") });
    expect(result.problems.map((p) => [p.file, p.pointer, p.code])).toEqual([
      ["primary/snake.json", "/$schema", "WRONG_TYPE"],
    ]);
  });

  it("is kept when stats count rewrites a stats file", () => {
    const cwd = project();
    writeFiles(cwd, {
      "catalogue/stats/primary.json": { $schema: "x.json", packages: {} },
      "access.log": '127.0.0.1 - - [10/Oct/2025:13:55:36 +0000] "GET /apps/snake.zip HTTP/1.1" 200 5 "-" "-"\n',
    });
    const run = shopfront(
      cwd,
      "stats",
      "count",
      "access.log",
      "--host",
      "primary",
      "--url-pattern",
      "/apps/{name}.zip",
    );
    expect(run.code, run.stderr).toBe(0);
    const stats = readFileSync(join(cwd, "catalogue", "stats", "primary.json"), "utf8");
    expect(JSON.parse(stats)).toMatchObject({ $schema: "x.json", packages: { snake: { downloads: 1 } } });
    expect(stats.startsWith('{\n  "$schema": "x.json",\n  "packages"')).toBe(true);
  });
});
