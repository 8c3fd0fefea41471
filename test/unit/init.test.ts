// `shopfront init` and `shopfront new`: a new project builds at once and never loses a file that
// existed; a new manifest is stamped with the time, passes validation, and is refused for a bad
// name, an undeclared host or a file that exists.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { validateCatalogue } from "../../src/load/validateCatalogue.js";
import { MANIFEST_FIELDS } from "../../src/catalogue/fields.js";
import { CONFIG_FILE } from "../../src/config/readConfig.js";
import { CHECK, FILL_IN, manifestTemplate } from "../../src/catalogue/manifestTemplate.js";
import { createManifest } from "../../src/scaffold/createManifest.js";
import { EXAMPLE_PACKAGE, initProject, projectFiles, vendoredTarball } from "../../src/scaffold/initProject.js";
import type { Problem } from "../../src/catalogue/problems.js";
import { PAGES_WORKFLOW } from "../../src/targets/githubPages.js";
import { FailureError, UsageError } from "../../src/util/errors.js";
import { VERSION } from "../../src/util/version.js";
import { copyFixture, FIXTURES, readJson, readTree, ROOT, tempDir } from "../support/helpers.js";

const NOW_MS = 1_700_000_000_123;
const now = () => NOW_MS;

const FILES = [
  CONFIG_FILE,
  "catalogue/hosts.json",
  "catalogue/primary/example.json",
  "catalogue/themes/.gitkeep",
  ".gitignore",
  ".github/workflows/pages.yml",
  ".vscode/settings.json",
  "package.json",
];
/** The shopfront that made the project, packed into it. */
const TARBALL = vendoredTarball(VERSION);

describe("shopfront init", () => {
  it("writes every file of a project, which validates and builds at once", async () => {
    const dir = join(tempDir(), "store");
    const result = initProject(dir, now);
    expect(result).toEqual({ written: [...FILES, TARBALL], kept: [] });
    expect([...readTree(dir).keys()].sort()).toEqual([...FILES, TARBALL].sort());
    // The package as npm publishes it, the compiled CLI included.
    const tar = gunzipSync(readFileSync(join(dir, TARBALL))).toString("latin1");
    for (const file of ["package/package.json", "package/lib/cli.js", "package/schemas/manifest.schema.json"])
      expect(tar).toContain(file);

    const catalogueDir = join(dir, "catalogue");
    // What is left to fill in is a warning, not an error: the project builds, its CI (--strict) does not yet.
    const toFillIn = [
      ["hosts.json", "/hosts/0/description"],
      ["hosts.json", "/hosts/0/name"],
      ["hosts.json", "/hosts/1/description"],
      ["hosts.json", "/hosts/1/name"],
      ...["/coder", "/display_name", "/long_description", "/short_description", "/version"].map((pointer) => [
        EXAMPLE_PACKAGE,
        pointer,
      ]),
    ];
    const placeholders = (problems: readonly Problem[]) =>
      problems.map((p) => (p.code === "PLACEHOLDER_TEXT" && p.severity === "warning" ? [p.file, p.pointer] : p));
    const validated = await validateCatalogue(catalogueDir);
    expect(placeholders(validated.problems)).toEqual(toFillIn);
    const config = readJson(join(dir, CONFIG_FILE)) as { targets: ["github-pages"] };
    const built = await buildCatalogue({ catalogueDir, outDir: join(dir, "dist"), targets: config.targets });
    expect(placeholders(built.problems)).toEqual(toFillIn);
    expect(built.built).toMatchObject({ hosts: 2, packages: 1 });
    const tree = readTree(join(dir, "dist"));
    expect([...tree.keys()]).toEqual(expect.arrayContaining(["v1/hosts", "v1/primary/package/example", ".nojekyll"]));
    // The example is stamped with the time of init, and its $schema stays out of the API.
    const example = JSON.parse(tree.get("v1/primary/package/example")!.toString()) as Record<string, unknown>;
    expect(example).toMatchObject({ release_date: 1_700_000_000, updated: 1_700_000_000 });
    expect(example).not.toHaveProperty("$schema");
  });

  it("never overwrites: a file that exists is kept, and a package.json says what it lacks", () => {
    const dir = tempDir();
    writeFileSync(join(dir, ".gitignore"), "mine\n");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ dependencies: { shopfront: "file:x.tgz" } }));
    const result = initProject(dir, now);
    expect(result.written).toEqual([...FILES.filter((f) => f !== ".gitignore" && f !== "package.json"), TARBALL]);
    expect(result.kept).toEqual([
      { path: ".gitignore" },
      { path: "package.json", lacks: "the scripts build, validate, serve" },
    ]);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("mine\n");

    const before = readTree(dir);
    writeFileSync(join(dir, "catalogue/hosts.json"), "edited");
    expect(initProject(dir, now)).toEqual({ written: [], kept: expect.any(Array) });
    expect(readFileSync(join(dir, "catalogue/hosts.json"), "utf8")).toBe("edited");
    expect(readTree(dir).size).toBe(before.size);
  });

  it("writes the GitHub Pages workflow of this repository, which the package ships", () => {
    const files = new Map(
      projectFiles({ version: VERSION, nowSeconds: 0, workflow: "w" }).map((f) => [f.path, f.content]),
    );
    expect(files.get(PAGES_WORKFLOW)).toBe("w");
    const pkg = readJson(join(ROOT, "package.json")) as { files: string[] };
    expect(pkg.files).toContain(PAGES_WORKFLOW);
    const workflow = parse(readFileSync(join(ROOT, PAGES_WORKFLOW), "utf8")) as { jobs: Record<string, unknown> };
    expect(Object.keys(workflow.jobs)).toContain("build");
  });

  it("maps every catalogue file and shopfront.json to its schema, for the editor and in $schema", () => {
    const files = new Map(
      projectFiles({ version: "9.8.7", nowSeconds: 0, workflow: "" }).map((f) => [f.path, f.content]),
    );
    expect(JSON.parse(files.get(".vscode/settings.json")!)).toEqual({
      "json.schemas": [
        {
          fileMatch: ["/catalogue/*/*.json", "!/catalogue/stats/*.json"],
          url: "./node_modules/shopfront/schemas/manifest.schema.json",
        },
        { fileMatch: ["/catalogue/hosts.json"], url: "./node_modules/shopfront/schemas/hosts-file.schema.json" },
        { fileMatch: ["/catalogue/stats/*.json"], url: "./node_modules/shopfront/schemas/stats.schema.json" },
        { fileMatch: ["/shopfront.json"], url: "./node_modules/shopfront/schemas/config.schema.json" },
      ],
    });
    const schemaOf = (path: string) => (JSON.parse(files.get(path)!) as { $schema: string }).$schema;
    expect(schemaOf(CONFIG_FILE)).toBe("./node_modules/shopfront/schemas/config.schema.json");
    expect(schemaOf("catalogue/hosts.json")).toBe("../node_modules/shopfront/schemas/hosts-file.schema.json");
    expect(schemaOf("catalogue/primary/example.json")).toBe(
      "../../node_modules/shopfront/schemas/manifest.schema.json",
    );
    expect(JSON.parse(files.get("package.json")!)).toEqual({
      private: true,
      scripts: { build: "shopfront build", validate: "shopfront validate", serve: "shopfront serve" },
      devDependencies: { shopfront: "file:vendor/shopfront-9.8.7.tgz" },
    });
    expect(files.get(".gitignore")!.split("\n")).toEqual(
      expect.arrayContaining(["/dist", "/.dist.shopfront/", "node_modules/"]),
    );
  });
});

describe("shopfront new", () => {
  const create = (catalogueDir: string, host: string, name: string) =>
    createManifest({ catalogueDir, host, name, projectDir: join(catalogueDir, ".."), now });

  it("--from copies a package folder or zip beside the manifest and fills it from meta.xml", async () => {
    const catalogueDir = copyFixture("basic");
    const source = join(FIXTURES, "package-files", "catalogue", "primary");
    const from = (name: string, path: string) =>
      createManifest({ catalogueDir, host: "primary", name, projectDir: join(catalogueDir, ".."), now, from: path });
    // A tree without apps/snake2/ is refused before anything is copied, naming what was looked for and the fix.
    await expect(from("snake2", join(source, "snake"))).rejects.toThrow(
      /holding apps\/snake2\/; its apps\/ holds snake\/: give the app's folder, --from .*snake\/apps\/snake$/,
    );
    expect(existsSync(join(catalogueDir, "primary", "snake2"))).toBe(false);
    expect(existsSync(join(catalogueDir, "primary", "snake2.json"))).toBe(false);

    rmSync(join(catalogueDir, "primary", "snake.json"));
    expect(await from("snake", join(source, "snake"))).toEqual({
      problems: [],
      file: "primary/snake.json",
      files: "primary/snake/",
      fillIn: [],
    });
    expect(readFileSync(join(catalogueDir, "primary/snake/apps/snake/boot.dol"))).toEqual(
      readFileSync(join(source, "snake/apps/snake/boot.dol")),
    );
    const written = readJson(join(catalogueDir, "primary", "snake.json")) as Record<string, unknown>;
    expect(written).toMatchObject({
      display_name: "Snake",
      coder: "Jane & Joe",
      version: "1.0",
      short_description: "Snake for up to 2 players",
      long_description: "A snake game.\nFor up to two players <and> a cat.",
      // Updated when released: nothing says the files are newer than meta.xml's date (never silently now).
      release_date: 1230768000,
      updated: 1230768000,
    });
    for (const field of ["zip_size", "extracted", "package_type"]) expect(written, field).not.toHaveProperty(field);

    expect(await from("pong", join(source, "pong.zip"))).toMatchObject({
      file: "primary/pong.json",
      files: "primary/pong.zip",
    });
    expect(readFileSync(join(catalogueDir, "primary", "pong.zip"))).toEqual(readFileSync(join(source, "pong.zip")));
    await expect(from("pong", join(source, "pong.zip"))).rejects.toThrow(FailureError);
    await expect(from("missing", join(source, "nothing-here"))).rejects.toThrow(UsageError);
    const { problems } = await validateCatalogue(catalogueDir);
    expect(problems.filter((p) => p.severity === "error")).toEqual([]);
  });

  it("writes a manifest stamped with the current time that passes validation", async () => {
    const catalogueDir = copyFixture("basic");
    expect(await create(catalogueDir, "themes", "night")).toEqual({ problems: [], file: "themes/night.json" });
    const written = readJson(join(catalogueDir, "themes", "night.json")) as Record<string, unknown>;
    expect(written).toMatchObject({
      $schema: "../../node_modules/shopfront/schemas/manifest.schema.json",
      internal_name: "night",
      release_date: 1_700_000_000,
      updated: 1_700_000_000,
    });
    expect(Object.keys(written).sort()).toEqual(["$schema", ...Object.keys(MANIFEST_FIELDS)].sort());
    // Valid, with each placeholder named for the maintainer to replace.
    expect((await validateCatalogue(catalogueDir)).problems.map((p) => [p.code, p.severity, p.file])).toEqual(
      Array.from({ length: 5 }, () => ["PLACEHOLDER_TEXT", "warning", "themes/night.json"]),
    );
  });

  it("names every placeholder field once, and only manifest fields", () => {
    const template = JSON.parse(manifestTemplate("x", 0, "s")) as Record<string, unknown>;
    const named = [...FILL_IN, ...CHECK];
    expect(new Set(named).size).toBe(named.length);
    for (const field of named) expect(template).toHaveProperty([field]);
  });

  it("refuses a name that breaks the rule, an undeclared host and a file that exists", async () => {
    const catalogueDir = copyFixture("basic");
    const before = readTree(catalogueDir);
    await expect(create(catalogueDir, "primary", "a b")).rejects.toThrow(UsageError);
    await expect(create(catalogueDir, "primary", "nul")).rejects.toThrow(/is a Windows device name/);
    await expect(create(catalogueDir, "games", "snake2")).rejects.toThrow(
      'host "games" is not declared in hosts.json (declared: primary, themes)',
    );
    await expect(create(catalogueDir, "primary", "snake")).rejects.toThrow(FailureError);
    expect(readTree(catalogueDir)).toEqual(before);
  });

  it("reports an invalid hosts.json as problems and writes nothing", async () => {
    const catalogueDir = copyFixture("basic");
    writeFileSync(join(catalogueDir, "hosts.json"), "{}");
    const result = await create(catalogueDir, "primary", "fresh");
    expect(result.file).toBeUndefined();
    expect(result.problems.map((p) => [p.file, p.pointer, p.code])).toEqual([
      ["hosts.json", "/default", "MISSING_FIELD"],
      ["hosts.json", "/hosts", "MISSING_FIELD"],
    ]);
  });
});

describe("a project made from a clone of shopfront (no registry has it yet)", () => {
  it("runs the README's first catalogue, and its CI's npm ci works in a clone of it anywhere else", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## A first catalogue"));
    const line = /```sh\n(.*)\n```/.exec(section)![1]!;
    expect(line).toBe(
      "npx shopfront init ../my-store && cd ../my-store && npm install && npx shopfront new primary/hello && npx shopfront build",
    );
    const run = (dir: string, command: string, ...args: string[]) => {
      const result = spawnSync(command, args, {
        cwd: dir,
        encoding: "utf8",
        timeout: 180_000,
        env: { ...process.env, NO_COLOR: "1", npm_config_audit: "false", npm_config_fund: "false" },
      });
      expect(result.status, `${command} ${args.join(" ")}: ${result.stderr}`).toBe(0);
      return result.stdout;
    };
    // In the clone `npx shopfront` is the clone's CLI, which `node lib/cli.js` runs directly; the
    // store goes to a temporary folder rather than beside this checkout.
    const made = join(tempDir(), "my-store");
    run(ROOT, process.execPath, join(ROOT, "lib", "cli.js"), "init", made);
    expect((readJson(join(made, "package.json")) as { devDependencies: object }).devDependencies).toEqual({
      shopfront: `file:${TARBALL}`,
    });
    run(made, "npm", "install");
    // What git would commit, elsewhere: no node_modules, no output, and no path of the first folder.
    const store = join(tempDir(), "elsewhere", "store");
    mkdirSync(dirname(store));
    rmSync(join(made, "node_modules"), { recursive: true });
    renameSync(made, store);
    const lock = readFileSync(join(store, "package-lock.json"), "utf8");
    expect(lock).toContain(`"resolved": "file:${TARBALL}"`);
    expect(lock).not.toContain(made);
    expect(lock).not.toContain(ROOT);

    // The build job of the workflow init wrote, step by step (npm ci from the npm cache where it can).
    const workflow = parse(readFileSync(join(store, PAGES_WORKFLOW), "utf8")) as {
      jobs: { build: { steps: { run?: string }[] } };
    };
    const steps = workflow.jobs.build.steps.flatMap((step) => (step.run ? [step.run] : []));
    expect(steps).toEqual([
      "npm ci",
      "npx shopfront validate --strict --format github",
      "npx shopfront build --target github-pages --strict --format github",
    ]);
    run(store, "npm", "ci", "--prefer-offline");
    expect(run(store, "npx", "shopfront", "new", "primary/hello")).toContain("catalogue/primary/hello.json");
    run(store, "npx", "shopfront", "validate", "--format", "github");
    // The new project's placeholders are annotated as warnings (the workflow's --strict refuses them).
    const built = run(store, "npx", "shopfront", "build", "--target", "github-pages", "--format", "github");
    expect(built).toMatch(/^::warning file=catalogue\/primary\/hello\.json,.*title=PLACEHOLDER_TEXT::\/coder /m);
    expect(built).toMatch(/^built 2 hosts, 2 packages/m);
    expect(readJson(join(store, "dist", "v1", "primary", "package", "hello"))).toMatchObject({
      internal_name: "hello",
    });
    expect(readTree(join(store, "dist")).has(".nojekyll")).toBe(true);
  }, 400_000);
});
