// The build end to end through the core: the output tree, its bytes, determinism, atomicity, and
// agreement with a naive second renderer (test/reference/renderReference.ts).
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { FailureError, UsageError } from "../../src/util/errors.js";
import { PACKAGE_FIELDS } from "../../src/catalogue/fields.js";
import { copyFixture, GEN_CATALOGUE, manifest, readJson, readTree, tempDir, writeFiles } from "../support/helpers.js";
import { renderReference } from "../reference/renderReference.js";

async function build(catalogueDir: string, outDir = join(tempDir(), "dist"), site = true) {
  const result = await buildCatalogue({ catalogueDir, outDir, site });
  return { ...result, outDir };
}

function manifestOf(catalogueDir: string, host: string, name: string): Record<string, unknown> {
  return readJson(join(catalogueDir, host, `${name}.json`)) as Record<string, unknown>;
}

describe("the output of the basic fixture", () => {
  let catalogueDir: string;
  let outDir: string;
  let result: Awaited<ReturnType<typeof build>>;
  let tree: Map<string, Buffer>;
  beforeAll(async () => {
    catalogueDir = copyFixture("basic");
    // The API alone: test/unit/site.test.ts holds the browse site.
    result = await build(catalogueDir, join(tempDir(), "dist"), false);
    outDir = result.outDir;
    tree = readTree(outDir);
  });
  const text = (path: string) => tree.get(path)!.toString("latin1");

  it("holds exactly the v1 files, the 404 body and the OpenAPI document: lists, filtered lists under each coder's hex, each host's empty list", () => {
    expect(result.problems).toEqual([]);
    // Coders are stored under the lowercase hex of their UTF-8 bytes: "Fixture Coder", "Zoë Ærø", "Themer".
    const [fixture, zoe, themer] = ["4669787475726520436f646572", "5a6fc3ab20c38672c3b8", "5468656d6572"];
    expect([...tree.keys()]).toEqual([
      "404.json",
      // Today's API (v3, v4): the default host's at the OSC's paths, themes' under hosts/; no
      // featured app on themes, whose packages use no Wii Remote.
      "api/v3/contents",
      "api/v3/featured-app",
      "api/v3/information",
      "api/v4/contents",
      "api/v4/featured-app",
      "api/v4/information",
      "hosts/themes/api/v3/contents",
      "hosts/themes/api/v3/information",
      "hosts/themes/api/v4/contents",
      "hosts/themes/api/v4/information",
      "openapi.json",
      "v1/hosts",
      `v1/primary/category/games/coder/${fixture}/packages`,
      `v1/primary/category/games/coder/${zoe}/packages`,
      "v1/primary/category/games/packages",
      `v1/primary/category/utilities/coder/${fixture}/packages`,
      "v1/primary/category/utilities/packages",
      `v1/primary/coder/${fixture}/packages`,
      `v1/primary/coder/${zoe}/packages`,
      "v1/primary/empty",
      "v1/primary/package/240pTest",
      "v1/primary/package/ZapShot",
      "v1/primary/package/snake",
      "v1/primary/package/snake-deluxe",
      "v1/primary/packages",
      `v1/themes/category/themes/coder/${themer}/packages`,
      "v1/themes/category/themes/packages",
      `v1/themes/coder/${themer}/packages`,
      "v1/themes/empty",
      "v1/themes/package/dark-blue",
      "v1/themes/packages",
    ]);
    expect(result.built).toEqual({
      hosts: 2,
      packages: 5,
      files: 32,
      mode: { kind: "full", reason: "no previous build" },
      changedPackages: 5,
      filesWritten: 32,
    });
  });

  it("fills each filtered list with exactly the packages that have its values, in the host's order", () => {
    const names = (path: string) => (JSON.parse(text(path)) as { internal_name: string }[]).map((p) => p.internal_name);
    const all = JSON.parse(text("v1/primary/packages")) as { internal_name: string; category: string; coder: string }[];
    for (const [path] of tree) {
      const match = /^v1\/primary\/(?:category\/(\w+)\/)?(?:coder\/([0-9a-f]+)\/)?packages$/.exec(path);
      if (!match || (!match[1] && !match[2])) continue;
      const [, category, coder] = match;
      const wanted = all.filter(
        (p) =>
          (category === undefined || p.category === category) &&
          (coder === undefined || Buffer.from(p.coder).toString("hex") === coder),
      );
      expect(names(path), path).toEqual(wanted.map((p) => p.internal_name));
      expect(names(path).length, path).toBeGreaterThan(0);
    }
    expect(text("v1/primary/empty")).toBe("[]");
  });

  it("has no v2 file, so a host that cannot route the query answers 404, never the list", () => {
    expect([...tree.keys()].filter((p) => p.startsWith("v2"))).toEqual([]);
  });

  it("renders the host list in the catalogue's order", () => {
    expect(readJson(join(outDir, "v1/hosts"))).toEqual({
      repos: ["primary", "themes"],
      repositories: {
        primary: { description: "Applications for the tests.", host: "hbb1.example.org", name: "Fixture Applications" },
        themes: { description: "Themes for the tests.", host: "hbb-themes.example.org", name: "Fixture Themes" },
      },
    });
  });

  it("gives every package exactly the 16 fields, keys sorted, manifest values plus downloads 0 and rating ''", () => {
    for (const [path] of tree) {
      const match = /^v1\/(\w+)\/package\/(.+)$/.exec(path);
      if (!match) continue;
      const pkg = JSON.parse(text(path)) as Record<string, unknown>;
      expect(Object.keys(pkg)).toEqual(Object.keys(PACKAGE_FIELDS).sort());
      expect(pkg).toEqual({ ...manifestOf(catalogueDir, match[1]!, match[2]!), downloads: 0, rating: "" });
    }
  });

  it("writes integers as integers and escapes everything outside ASCII as \\uXXXX", () => {
    const snake = text("v1/primary/package/snake-deluxe");
    expect(snake).toContain('"zip_size":204800}');
    expect(snake).toContain('"downloads":0,');
    expect(snake).toContain('"coder":"Zo\\u00eb \\u00c6r\\u00f8"');
    expect(snake).toContain('"display_name":"Snake \\u2013 Deluxe"');
    expect(snake).toContain("\\u65e5\\u672c\\u8a9e text \\ud83c\\udfae.");
    expect(snake).toContain('a \\"quote\\"');
    for (const [path, bytes] of tree)
      expect(
        [...bytes].every((b) => b >= 0x20 && b < 0x7f),
        path,
      ).toBe(true);
  });

  it("lists each host's packages sorted by internal_name in code-point order, each as its own file has it", () => {
    const list = JSON.parse(text("v1/primary/packages")) as { internal_name: string }[];
    expect(list.map((p) => p.internal_name)).toEqual(["240pTest", "ZapShot", "snake", "snake-deluxe"]);
    expect(text("v1/primary/packages")).toBe(
      `[${list.map((p) => text(`v1/primary/package/${p.internal_name}`)).join(",")}]`,
    );
    expect(JSON.parse(text("v1/themes/packages"))).toHaveLength(1);
  });

  it("writes a JSON 404 body", () => {
    expect(JSON.parse(text("404.json"))).toMatchObject({ error: "not_found" });
  });
});

describe("determinism", () => {
  it("two builds of the same catalogue give byte-identical trees", async () => {
    const catalogueDir = copyFixture("basic");
    const first = await build(catalogueDir);
    const second = await build(catalogueDir);
    expect(readTree(second.outDir)).toEqual(readTree(first.outDir));
  });

  it("a catalogue with an empty host builds an empty list", async () => {
    const catalogueDir = copyFixture("basic");
    writeFiles(catalogueDir, {
      "hosts.json": {
        default: "primary",
        hosts: [
          { id: "primary", name: "P", host: "p.example.org", description: "" },
          { id: "none", name: "N", host: "n.example.org", description: "" },
        ],
      },
      "none/.gitkeep": "",
      "themes/.gitkeep": "",
    });
    execFileSync("rm", ["-r", join(catalogueDir, "themes")]);
    const { outDir } = await build(catalogueDir);
    expect(readFileSync(join(outDir, "v1/none/packages"), "utf8")).toBe("[]");
  });
});

describe("atomicity", () => {
  it("a failed build leaves the previous output exactly as it was", async () => {
    const catalogueDir = copyFixture("basic");
    const { outDir } = await build(catalogueDir);
    const before = readTree(outDir);
    const link = readlinkSync(outDir);
    writeFiles(catalogueDir, {
      "primary/snake.json": manifest("snake", { zip_size: "x" }),
      "primary/new.json": manifest("new"),
    });
    const failed = await build(catalogueDir, outDir);
    expect(failed.built).toBeUndefined();
    expect(failed.problems.map((p) => p.code)).toEqual(["WRONG_TYPE"]);
    expect(readTree(outDir)).toEqual(before);
    expect(readlinkSync(outDir)).toBe(link);
  });

  it("a full build replaces the output in one step: the link moves to the other slot; a rebuild renames its files in", async () => {
    const catalogueDir = copyFixture("basic");
    const { outDir } = await build(catalogueDir);
    const first = readlinkSync(outDir);
    writeFiles(catalogueDir, { "primary/new.json": manifest("new") });
    const full = await buildCatalogue({ catalogueDir, outDir, force: true });
    expect(full.built?.mode.kind).toBe("full");
    expect(lstatSync(outDir).isSymbolicLink()).toBe(true);
    const second = readlinkSync(outDir);
    expect(second).not.toBe(first);
    expect(readTree(outDir).has("v1/primary/package/new")).toBe(true);
    writeFiles(catalogueDir, { "primary/newer.json": manifest("newer") });
    const rebuilt = await buildCatalogue({ catalogueDir, outDir });
    expect(rebuilt.built?.mode.kind).toBe("incremental");
    expect(readlinkSync(outDir)).toBe(second);
    expect(readTree(outDir).has("v1/primary/package/newer")).toBe(true);
  });

  it("refuses to replace a folder it did not make, and leaves it alone", async () => {
    const outDir = join(tempDir(), "dist");
    writeFiles(outDir, { "index.html": "mine" });
    await expect(build(copyFixture("basic"), outDir)).rejects.toThrow(UsageError);
    expect(readTree(outDir)).toEqual(new Map([["index.html", Buffer.from("mine")]]));
  });

  it("takes an empty folder over", async () => {
    const outDir = join(tempDir(), "dist");
    mkdirSync(outDir);
    await build(copyFixture("basic"), outDir);
    expect(lstatSync(outDir).isSymbolicLink()).toBe(true);
  });

  it("fails clearly while another live build holds the lock, and takes over a dead build's lock", async () => {
    const catalogueDir = copyFixture("basic");
    const { outDir } = await build(catalogueDir);
    const lock = join(outDir, "..", ".dist.shopfront", "lock");
    const host = (await import("node:os")).hostname();
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host }));
    await expect(build(catalogueDir, outDir)).rejects.toThrow(FailureError);
    const dead = Number(execFileSync("sh", ["-c", "sh -c 'echo $$'"]).toString());
    writeFileSync(lock, JSON.stringify({ pid: dead, host }));
    expect((await build(catalogueDir, outDir)).built).toBeDefined();
  });
});

describe("against a naive reference renderer", () => {
  it("writes exactly the v1 files of test/reference/renderReference.ts, byte for byte, with real-shaped coders and stats", async () => {
    const catalogueDir = join(tempDir(), "catalogue");
    execFileSync(process.execPath, [GEN_CATALOGUE, catalogueDir, "300", "3", "7", "--coders=real", "--stats"]);
    const referenceDir = join(tempDir(), "reference");
    renderReference(catalogueDir, referenceDir);
    const { outDir, problems } = await build(catalogueDir);
    expect(problems).toEqual([]);
    const ours = readTree(outDir);
    const reference = readTree(referenceDir);
    const v1 = (tree: Map<string, Buffer>) => [...tree.keys()].filter((p) => p.startsWith("v1/"));
    expect(v1(ours)).toEqual(v1(reference));
    // The catalogue exercises what it should: shared coders, a coder cut into two folders, stats.
    const coderLists = v1(ours).filter((p) => /^v1\/[^/]+\/coder\//.test(p));
    expect(coderLists.length).toBeGreaterThan(10);
    expect(coderLists.some((p) => JSON.parse(ours.get(p)!.toString()).length > 2)).toBe(true);
    expect(coderLists.some((p) => p.split("/").length > 5)).toBe(true);
    expect(ours.get("v1/primary/packages")!.toString()).toMatch(/"rating":"[^"]+"/);
    for (const path of v1(reference))
      expect(ours.get(path)!.toString("latin1"), path).toBe(reference.get(path)!.toString("latin1"));
  });
});
