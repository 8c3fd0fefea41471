// A corpus of named hostile inputs, each run through the real binary against a previous good
// build: the right problem, exit 1, no stack trace, and the previous output untouched.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyFixture, manifest, readTree, ROOT, tempDir, writeFiles } from "../support/helpers.js";

const BIN = join(ROOT, "lib", "cli.js");

function run(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A project with the basic fixture as catalogue/ and a good build in dist/. */
function builtProject(): string {
  const cwd = join(copyFixture("basic"), "..");
  expect(run(cwd, "build", "--quiet").code).toBe(0);
  return cwd;
}

const snake = () => JSON.stringify(manifest("snake"), null, 2);
type Hostile = [name: string, change: (catalogue: string) => void, codes: string[]];

const CASES: Hostile[] = [
  [
    "malformed JSON",
    (c) => writeFiles(c, { "primary/snake.json": '{"internal_name": "snake" "version": "1"}' }),
    ["JSON_SYNTAX"],
  ],
  ["a truncated file", (c) => writeFiles(c, { "primary/snake.json": snake().slice(0, 120) }), ["JSON_SYNTAX"]],
  [
    "invalid UTF-8",
    (c) =>
      writeFiles(c, {
        "primary/snake.json": Buffer.concat([
          Buffer.from(snake().slice(0, 30)),
          Buffer.from([0xfe, 0xff, 0xc0]),
          Buffer.from(snake().slice(30)),
        ]),
      }),
    ["INVALID_UTF8"],
  ],
  ["a NUL byte after the value", (c) => writeFiles(c, { "primary/snake.json": `${snake()}\u0000` }), ["JSON_SYNTAX"]],
  [
    "a raw NUL byte in a string",
    (c) => writeFiles(c, { "primary/snake.json": snake().replace("Long description.", "Long\u0000description.") }),
    ["JSON_SYNTAX"],
  ],
  [
    "an escaped NUL in a text field",
    (c) => writeFiles(c, { "primary/snake.json": manifest("snake", { long_description: "a\u0000b" }) }),
    ["BAD_FORMAT"],
  ],
  [
    "duplicate keys in one object",
    (c) =>
      writeFiles(c, { "primary/snake.json": snake().replace('"zip_size": 1024', '"zip_size": 1024, "zip_size": 1') }),
    ["DUPLICATE_KEY"],
  ],
  [
    "a 50 MB description",
    (c) =>
      writeFiles(c, {
        "primary/snake.json": JSON.stringify(manifest("snake", { long_description: "x".repeat(50 * 1024 * 1024) })),
      }),
    ["FILE_TOO_LARGE"],
  ],
  [
    "a deeply nested value",
    (c) =>
      writeFiles(c, {
        "primary/snake.json": snake().replace('"Long description."', `${"[".repeat(200_000)}${"]".repeat(200_000)}`),
      }),
    ["WRONG_TYPE"],
  ],
  [
    "a deeply nested unknown field",
    (c) =>
      writeFiles(c, {
        "primary/snake.json": snake().replace("{", `{"x": ${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)},`),
      }),
    ["UNKNOWN_FIELD"],
  ],
  [
    "a number beyond 2^53",
    (c) => writeFiles(c, { "primary/snake.json": snake().replace('"zip_size": 1024', '"zip_size": 9007199254740993') }),
    ["OUT_OF_RANGE"],
  ],
  [
    "a number beyond a double",
    (c) => writeFiles(c, { "primary/snake.json": snake().replace('"zip_size": 1024', '"zip_size": 1e400') }),
    ["WRONG_TYPE"],
  ],
  [
    "a negative size",
    (c) => writeFiles(c, { "primary/snake.json": manifest("snake", { zip_size: -5 }) }),
    ["OUT_OF_RANGE"],
  ],
  [
    "a fractional size",
    (c) => writeFiles(c, { "primary/snake.json": manifest("snake", { extracted: 10.5 }) }),
    ["WRONG_TYPE"],
  ],
  [
    "the name '..' in a manifest",
    (c) => writeFiles(c, { "primary/snake.json": manifest("..") }),
    ["INVALID_NAME", "NAME_MISMATCH"],
  ],
  [
    "the name '.' in a manifest",
    (c) => writeFiles(c, { "primary/snake.json": manifest(".") }),
    ["INVALID_NAME", "NAME_MISMATCH"],
  ],
  [
    "the name 'a/b' in a manifest",
    (c) => writeFiles(c, { "primary/snake.json": manifest("a/b") }),
    ["INVALID_NAME", "NAME_MISMATCH"],
  ],
  [
    "a file named 'a\\b'",
    (c) => writeFiles(c, { "primary/a\\b.json": manifest("a\\b") }),
    ["INVALID_NAME", "INVALID_NAME"],
  ],
  [
    "a file named '%2e%2e'",
    (c) => writeFiles(c, { "primary/%2e%2e.json": manifest("%2e%2e") }),
    ["INVALID_NAME", "INVALID_NAME"],
  ],
  [
    "a file named 'CON'",
    (c) => writeFiles(c, { "primary/CON.json": manifest("CON") }),
    ["RESERVED_NAME", "RESERVED_NAME"],
  ],
  [
    "a file named 'nul.txt'",
    (c) => writeFiles(c, { "primary/nul.txt.json": manifest("nul.txt") }),
    ["RESERVED_NAME", "RESERVED_NAME"],
  ],
  [
    "a host id '..'",
    (c) =>
      writeFiles(c, {
        "hosts.json": readFileSync(join(c, "hosts.json"), "utf8").replace('"id": "themes"', '"id": ".."'),
      }),
    ["INVALID_NAME", "UNDECLARED_HOST_FOLDER"],
  ],
  [
    "a host id 'nul'",
    (c) =>
      writeFiles(c, {
        "hosts.json": readFileSync(join(c, "hosts.json"), "utf8").replace('"id": "themes"', '"id": "nul"'),
      }),
    ["RESERVED_NAME", "UNDECLARED_HOST_FOLDER"],
  ],
  [
    "names differing only in case",
    (c) => writeFiles(c, { "primary/SNAKE.json": manifest("SNAKE") }),
    ["CASE_COLLISION"],
  ],
  [
    "a symbolic link pointing outside",
    (c) => symlinkSync("/etc/passwd", join(c, "primary", "passwd.json")),
    ["SYMLINK"],
  ],
  [
    "a host folder that is a file",
    (c) => (rmSync(join(c, "themes"), { recursive: true }), writeFileSync(join(c, "themes"), "")),
    ["NOT_A_FOLDER"],
  ],
  ["an empty catalogue", (c) => (rmSync(c, { recursive: true }), mkdirSync(c)), ["MISSING_HOSTS_FILE"]],
  [
    "a catalogue with no hosts",
    (c) => writeFiles(c, { "hosts.json": { default: "primary", hosts: [] } }),
    ["BAD_LENGTH", "UNDECLARED_HOST_FOLDER", "UNDECLARED_HOST_FOLDER", "UNKNOWN_DEFAULT_HOST"],
  ],
  ["an empty manifest", (c) => writeFiles(c, { "primary/snake.json": "" }), ["EMPTY_FILE"]],
  ["a manifest that is not an object", (c) => writeFiles(c, { "primary/snake.json": "null" }), ["WRONG_TYPE"]],
];

describe("hostile input", () => {
  it.each(CASES)("%s: named problems, exit 1, no stack trace, nothing written", (_, change) => {
    const cwd = builtProject();
    const before = readTree(join(cwd, "dist"));
    change(join(cwd, "catalogue"));
    const result = run(cwd, "build");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).not.toMatch(/\n\s+at |internal error/);
    expect(result.stderr).toMatch(/; nothing was written\n$/);
    expect(readTree(join(cwd, "dist"))).toEqual(before);
  });

  it.each(CASES)("%s: the problem codes", async (_, change, codes) => {
    const { loadCatalogue } = await import("../../src/load/loadCatalogue.js");
    const catalogue = copyFixture("basic");
    change(catalogue);
    const { problems } = await loadCatalogue(catalogue);
    expect(
      problems
        .filter((p) => p.severity === "error")
        .map((p) => p.code)
        .sort(),
    ).toEqual([...codes].sort());
  });

  it("a byte order mark is a warning, and the build goes on", () => {
    const cwd = builtProject();
    writeFiles(join(cwd, "catalogue"), { "primary/snake.json": `\ufeff${snake()}` });
    const result = run(cwd, "build");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("byte order mark");
  });

  it("a host with no packages builds an empty list", () => {
    const cwd = builtProject();
    for (const f of ["dark-blue.json"]) rmSync(join(cwd, "catalogue", "themes", f));
    expect(run(cwd, "build", "--quiet").code).toBe(0);
    expect(readFileSync(join(cwd, "dist", "v1", "themes", "packages"), "utf8")).toBe("[]");
  });

  it("thousands of problems at once: the report stays readable, grouped, counted and capped", () => {
    const cwd = join(tempDir(), "project");
    const files: Record<string, unknown> = {
      "catalogue/hosts.json": JSON.parse(readFileSync(join(copyFixture("basic"), "hosts.json"), "utf8")),
      "catalogue/themes/.keep": "",
    };
    for (let i = 0; i < 3000; i++)
      files[`catalogue/primary/p${i}.json`] = manifest(`p${i}`, { zip_size: "big", downloads: 1 });
    writeFiles(cwd, files);
    const result = run(cwd, "validate");
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(100 + 3);
    expect(lines[100]).toBe("... and 5900 more (5900 errors) not shown; --max-problems 0 shows them all");
    expect(lines[101]).toBe("by kind: 3000 UNKNOWN_FIELD, 3000 WRONG_TYPE");
    expect(lines[102]).toBe("6000 errors in 3000 files");
    expect(run(cwd, "validate", "--max-problems", "0").stderr.trim().split("\n")).toHaveLength(6001);
  });
});
