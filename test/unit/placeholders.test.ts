// Placeholder text that `init` and `new` write is a warning naming the file, the field and what to
// write, in `validate` and in both kinds of build; `--strict` makes every warning an error: the
// command exits 1 and a build leaves the previous output as it was.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { HOST_PLACEHOLDERS, MANIFEST_PLACEHOLDERS } from "../../src/catalogue/manifestTemplate.js";
import { validateCatalogue } from "../../src/load/validateCatalogue.js";
import { createManifest } from "../../src/scaffold/createManifest.js";
import { projectFiles } from "../../src/scaffold/initProject.js";
import { copyFixture, manifest, readJson, readTree, shopfront, tempDir, writeFiles } from "../support/helpers.js";

const NOW_MS = 1_700_000_000_000;

/** The basic fixture with `primary/hello.json` as `new` writes it. */
async function withNewManifest(): Promise<string> {
  const catalogueDir = copyFixture("basic");
  const created = await createManifest({
    catalogueDir,
    host: "primary",
    name: "hello",
    projectDir: join(catalogueDir, ".."),
    now: () => NOW_MS,
  });
  expect(created.file).toBe("primary/hello.json");
  return catalogueDir;
}

const placeholders = (problems: readonly { code: string; severity: string; file: string; pointer: string }[]) =>
  problems.filter((p) => p.code === "PLACEHOLDER_TEXT").map((p) => [p.severity, p.file, p.pointer]);

const FILLED_IN = {
  coder: "Jane Doe",
  display_name: "Hello",
  long_description: "Says hello.",
  short_description: "Says hello",
  version: "1.0",
};

describe("placeholder text", () => {
  it("that new writes is a warning in validate, with the field's pointer and what to write", async () => {
    const catalogueDir = await withNewManifest();
    const result = await validateCatalogue(catalogueDir);
    expect(result.valid).toEqual({ hosts: 2, packages: 6 });
    expect(placeholders(result.problems)).toEqual(
      ["/coder", "/display_name", "/long_description", "/short_description", "/version"].map((pointer) => [
        "warning",
        "primary/hello.json",
        pointer,
      ]),
    );
    const coder = result.problems.find((p) => p.pointer === "/coder")!;
    expect(coder.message).toBe(
      `is the placeholder "${MANIFEST_PLACEHOLDERS.coder}" written by init or new: write who made the package, as its meta.xml's <coder> says`,
    );
    expect(result.problems.every((p) => p.code === "PLACEHOLDER_TEXT")).toBe(true);
  });

  it("is found beside real words, and a filled-in manifest has none", async () => {
    const catalogueDir = await withNewManifest();
    const path = join(catalogueDir, "primary", "hello.json");
    const written = readJson(path) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify({ ...written, ...FILLED_IN }));
    expect((await validateCatalogue(catalogueDir)).problems).toEqual([]);

    writeFileSync(
      path,
      JSON.stringify({
        ...written,
        ...FILLED_IN,
        long_description: `Says hello.\n${MANIFEST_PLACEHOLDERS.long_description}`,
      }),
    );
    const { problems } = await validateCatalogue(catalogueDir);
    expect(placeholders(problems)).toEqual([["warning", "primary/hello.json", "/long_description"]]);
    expect(problems[0]!.message).toMatch(/^holds the placeholder "<what the package does/);
  });

  it("that init writes into hosts.json and its example is a warning, and the project still builds", async () => {
    const dir = tempDir();
    for (const file of projectFiles({ version: "0.0.0", nowSeconds: NOW_MS / 1000, workflow: "" }))
      if (file.path.startsWith("catalogue/")) writeFiles(dir, { [file.path]: file.content });
    const catalogueDir = join(dir, "catalogue");
    const built = await buildCatalogue({ catalogueDir, outDir: join(dir, "dist") });
    expect(built.built).toBeDefined();
    expect(placeholders(built.problems)).toEqual([
      ["warning", "hosts.json", "/hosts/0/description"],
      ["warning", "hosts.json", "/hosts/0/name"],
      ["warning", "hosts.json", "/hosts/1/description"],
      ["warning", "hosts.json", "/hosts/1/name"],
      ...["/coder", "/display_name", "/long_description", "/short_description", "/version"].map((pointer) => [
        "warning",
        "primary/example.json",
        pointer,
      ]),
    ]);
    expect(built.problems.find((p) => p.pointer === "/hosts/0/name")!.message).toBe(
      `is the placeholder "${HOST_PLACEHOLDERS.primaryName}" written by init: write the repository's name as clients list it`,
    );
  });

  it("is reported by a rebuild that reads the edited manifest, and again while it is unchanged", async () => {
    const catalogueDir = copyFixture("basic");
    const outDir = join(tempDir(), "dist");
    expect((await buildCatalogue({ catalogueDir, outDir })).problems).toEqual([]);
    writeFiles(catalogueDir, { "primary/snake.json": manifest("snake", { coder: MANIFEST_PLACEHOLDERS.coder }) });
    const rebuilt = await buildCatalogue({ catalogueDir, outDir });
    expect(rebuilt.built?.mode.kind).toBe("incremental");
    expect(placeholders(rebuilt.problems)).toEqual([["warning", "primary/snake.json", "/coder"]]);
    const again = await buildCatalogue({ catalogueDir, outDir });
    expect(again.built?.mode.kind).toBe("unchanged");
    expect(again.problems).toEqual(rebuilt.problems);
    // Published as written when not --strict: the warning says so, it does not stop the build.
    expect(readJson(join(outDir, "v1", "primary", "package", "snake"))).toMatchObject({ coder: "<coder>" });
  });
});

describe("--strict", () => {
  it("makes validate's warnings errors, so that the catalogue is not valid", async () => {
    const catalogueDir = await withNewManifest();
    const result = await validateCatalogue(catalogueDir, { strict: true });
    expect(result.valid).toBeUndefined();
    expect(result.problems.map((p) => [p.code, p.severity])).toEqual(
      Array.from({ length: 5 }, () => ["PLACEHOLDER_TEXT", "error"]),
    );
  });

  it.each([
    ["a full build", { force: true }],
    ["a rebuild", {}],
  ])("makes %s with a warning write nothing, the previous output left as it was", async (_, extra) => {
    const catalogueDir = copyFixture("basic");
    const outDir = join(tempDir(), "dist");
    expect((await buildCatalogue({ catalogueDir, outDir, strict: true })).built).toBeDefined();
    const before = readTree(outDir);
    writeFiles(catalogueDir, { "primary/snake.json": manifest("snake", { version: MANIFEST_PLACEHOLDERS.version }) });
    const result = await buildCatalogue({ catalogueDir, outDir, strict: true, ...extra });
    expect(result.built).toBeUndefined();
    expect(result.problems.map((p) => [p.code, p.severity, p.file, p.pointer])).toEqual([
      ["PLACEHOLDER_TEXT", "error", "primary/snake.json", "/version"],
    ]);
    expect(readTree(outDir)).toEqual(before);
    // Without --strict the same catalogue builds, the warning reported.
    const relaxed = await buildCatalogue({ catalogueDir, outDir });
    expect(relaxed.built).toBeDefined();
    expect(placeholders(relaxed.problems)).toEqual([["warning", "primary/snake.json", "/version"]]);
  });

  it("refuses a warning an earlier build reported and the rebuild carries over unread", async () => {
    const catalogueDir = copyFixture("basic");
    const outDir = join(tempDir(), "dist");
    writeFiles(catalogueDir, { "primary/snake.json": manifest("snake", { coder: MANIFEST_PLACEHOLDERS.coder }) });
    expect((await buildCatalogue({ catalogueDir, outDir })).built).toBeDefined();
    const before = readTree(outDir);
    const strict = await buildCatalogue({ catalogueDir, outDir, strict: true });
    expect(strict.built).toBeUndefined();
    expect(placeholders(strict.problems)).toEqual([["error", "primary/snake.json", "/coder"]]);
    expect(readTree(outDir)).toEqual(before);
  });

  it("refuses the warnings a rebuild finds only when it plans the output (stats of a package that is gone)", async () => {
    const catalogueDir = copyFixture("basic");
    const outDir = join(tempDir(), "dist");
    expect((await buildCatalogue({ catalogueDir, outDir, strict: true })).built).toBeDefined();
    const before = readTree(outDir);
    writeFiles(catalogueDir, { "stats/primary.json": { packages: { retired: { downloads: 9 } } } });
    const strict = await buildCatalogue({ catalogueDir, outDir, strict: true });
    expect(strict.built).toBeUndefined();
    expect(strict.problems.map((p) => [p.code, p.severity, p.pointer])).toEqual([
      ["STATS_UNKNOWN_PACKAGE", "error", "/packages/retired"],
    ]);
    expect(readTree(outDir)).toEqual(before);
    // Without --strict the rebuild goes ahead: the stats change nothing that is published.
    const relaxed = await buildCatalogue({ catalogueDir, outDir });
    expect(relaxed.built?.mode.kind).toBe("unchanged");
    expect(relaxed.problems.map((p) => [p.code, p.severity])).toEqual([["STATS_UNKNOWN_PACKAGE", "warning"]]);
  });

  it("exits 1 from the binary, validate and build alike, and build writes nothing", () => {
    const catalogueDir = copyFixture("basic");
    const dir = join(catalogueDir, "..");
    expect(shopfront(dir, "build", "--strict", "--quiet").code).toBe(0);
    const before = readTree(join(dir, "dist"));
    const path = join(catalogueDir, "primary", "snake.json");
    writeFileSync(path, readFileSync(path, "utf8").replace(/"coder": "[^"]*"/, '"coder": "<coder>"'));

    const validated = shopfront(dir, "validate", "--strict");
    expect(validated.code).toBe(1);
    expect(validated.stderr).toContain(
      'catalogue/primary/snake.json: /coder is the placeholder "<coder>" written by init or new: write who made the package',
    );
    expect(validated.stderr).toContain("1 error in 1 file");
    const built = shopfront(dir, "build", "--strict");
    expect(built.code).toBe(1);
    expect(built.stderr).toContain("1 error in 1 file; nothing was written");
    expect(readTree(join(dir, "dist"))).toEqual(before);

    const relaxed = shopfront(dir, "validate");
    expect(relaxed.code).toBe(0);
    expect(relaxed.stderr).toContain("/coder is the placeholder");
    expect(relaxed.stderr).toContain("(warning)");
  });
});
