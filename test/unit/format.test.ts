// Output for machines: where a pointer's value is in a JSON text, GitHub's escaping, and the real
// binary's `--format json` and `--format github` for validate, build and check, exit codes included.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { escapeData, escapeProperty, formatAnnotation } from "../../src/cli/formatGithub.js";
import { formatProblemCount, formatProblems } from "../../src/cli/formatProblems.js";
import type { Problem } from "../../src/catalogue/problems.js";
import { servePreview } from "../../src/serve/servePreview.js";
import { pointerPosition, syntaxErrorPosition } from "../../src/validate/pointerLine.js";
import { BIN, copyFixture, manifest, readTree, shopfront, writeFiles } from "../support/helpers.js";
import { isFileIndexPath } from "../../src/routes/routeTable.js";

describe("pointerPosition", () => {
  const text = [
    "{", // 1
    '  "a": 1,', // 2
    '  "b": {"c": [10, {"d": "}]"}, 30], "e/f": null, "g~h": true},', // 3
    '  "s": "a \\" quote",', // 4
    '  "dup": 1,', // 5
    '  "dup": 2', // 6
    "}", // 7
  ].join("\n");

  it.each([
    ["/a", 2, 8],
    ["/b", 3, 8],
    ["/b/c", 3, 14],
    ["/b/c/0", 3, 15],
    ["/b/c/1/d", 3, 25],
    ["/b/c/2", 3, 32],
    ["/b/e~1f", 3, 44],
    ["/b/g~0h", 3, 57],
    ["/s", 4, 8],
    // JSON.parse keeps the last of two equal keys; so does a report.
    ["/dup", 6, 10],
    // A missing member: its nearest ancestor.
    ["/b/missing", 3, 8],
    ["/b/c/7", 3, 14],
    ["/missing", 1, 1],
    ["", 1, 1],
  ])("%s is at line %i, column %i", (pointer, line, column) => {
    expect(pointerPosition(text, pointer)).toEqual({ line, column });
  });

  it("counts columns after a byte order mark as parseJson does, and gives nothing for no value", () => {
    expect(pointerPosition('\ufeff{"a": 1}', "/a")).toEqual({ line: 1, column: 7 });
    expect(pointerPosition("  \n ", "/a")).toBeUndefined();
  });

  it("finds what it can in a text that is not valid JSON, and the syntax error's position", () => {
    const broken = '{\n  "a": [1, 2,\n  "b": 3\n';
    expect(pointerPosition(broken, "/a")).toEqual({ line: 2, column: 8 });
    expect(syntaxErrorPosition(broken)).toEqual({ line: 3, column: 6 });
    expect(syntaxErrorPosition('\ufeff{"a" 1}')).toEqual({ line: 1, column: 6 });
  });
});

describe("GitHub workflow commands", () => {
  it("escape %, CR and LF in messages, and also : and , in properties", () => {
    expect(escapeData("50% done\r\nnext: a, b")).toBe("50%25 done%0D%0Anext: a, b");
    expect(escapeProperty("a:b,c%d\ne")).toBe("a%3Ab%2Cc%25d%0Ae");
  });

  it("name the file, line, column and code of a problem, and the pointer in the message", () => {
    const show = (file: string) => `catalogue/${file}`;
    expect(
      formatAnnotation(
        {
          code: "UNKNOWN_FIELD",
          severity: "error",
          file: "primary/a,b:c.json",
          pointer: "/x",
          message: "is 100%\nunknown",
          line: 3,
          column: 5,
        },
        show,
      ),
    ).toBe("::error file=catalogue/primary/a%2Cb%3Ac.json,line=3,col=5,title=UNKNOWN_FIELD::/x is 100%25%0Aunknown");
    expect(
      formatAnnotation(
        { code: "EMPTY_FILE", severity: "warning", file: "hosts.json", pointer: "", message: "m" },
        show,
      ),
    ).toBe("::warning file=catalogue/hosts.json,title=EMPTY_FILE::m");
  });
});

/** A project whose catalogue has an error in each of three files and a warning in a fourth. */
function brokenProject(): string {
  const catalogue = copyFixture("basic");
  writeFiles(catalogue, {
    "primary/snake.json": '{\n  "internal_name": "snake",\n',
    "primary/ZapShot.json": manifest("ZapShot", { zip_size: "12" }),
    "themes/dark-blue.json": manifest("dark-blue", { "odd, key": 1 }),
    "primary/240pTest.json": manifest("240pTest", { updated: 1 }),
  });
  return join(catalogue, "..");
}

// Lines in manifest()'s pretty JSON: keys sorted as written, one per line from line 2.
/** Errors first, then the warning: the ones that fail the run lead the report. */
const EXPECTED_ANNOTATIONS = [
  '::error file=catalogue/primary/ZapShot.json,line=15,col=15,title=WRONG_TYPE::/zip_size must be integer (is string "12")',
  "::error file=catalogue/primary/snake.json,line=3,col=1,title=JSON_SYNTAX::line 3, column 1: expected a property name in double quotes, found the end of the file",
  expect.stringMatching(
    /^::error file=catalogue\/themes\/dark-blue\.json,line=16,col=15,title=UNKNOWN_FIELD::\/odd, key is not a known field/,
  ),
  "::warning file=catalogue/primary/240pTest.json,line=13,col=14,title=UPDATED_BEFORE_RELEASE::/updated (1) is earlier than /release_date (1300000000)",
];

describe("--format for validate and build (the binary)", () => {
  it("text stays as it was", () => {
    const run = shopfront(brokenProject(), "validate");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('catalogue/primary/ZapShot.json: /zip_size must be integer (is string "12")\n');
  });

  it("github: one workflow command per problem on stdout, the count on stderr, exit 1", () => {
    const run = shopfront(brokenProject(), "validate", "--format", "github");
    expect(run.code).toBe(1);
    expect(run.stdout.split("\n")).toEqual([...EXPECTED_ANNOTATIONS, ""]);
    expect(run.stderr).toBe("3 errors and 1 warning in 4 files\n");
  });

  it("github on build: the annotations, the count, and nothing written", () => {
    const cwd = brokenProject();
    const run = shopfront(cwd, "build", "--format", "github");
    expect(run.code).toBe(1);
    expect(run.stdout.split("\n")).toEqual([...EXPECTED_ANNOTATIONS, ""]);
    expect(run.stderr).toBe("3 errors and 1 warning in 4 files; nothing was written\n");
    expect(existsSync(join(cwd, "dist"))).toBe(false);
  });

  it("github with warnings only: the warning, then the normal summary, exit 0", () => {
    const catalogue = copyFixture("basic");
    writeFiles(catalogue, { "primary/240pTest.json": manifest("240pTest", { updated: 1 }) });
    const run = shopfront(join(catalogue, ".."), "build", "--format", "github");
    expect(run.code).toBe(0);
    const [warning, summary, end] = run.stdout.split("\n");
    expect(warning).toBe(EXPECTED_ANNOTATIONS.at(-1));
    expect(summary).toMatch(/^built 2 hosts, 5 packages, \d+ files in \d+\.\d s into dist/);
    expect(end).toBe("");
  });

  it("json: one document with every problem, its line and column, and no summary; exit 1", () => {
    const run = shopfront(brokenProject(), "validate", "--format", "json", "--max-problems", "1");
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("");
    const report = JSON.parse(run.stdout) as { ok: boolean; problems: Record<string, unknown>[]; summary: unknown };
    expect(report.ok).toBe(false);
    expect(report.summary).toBeNull();
    expect(report.problems).toEqual([
      {
        code: "UPDATED_BEFORE_RELEASE",
        severity: "warning",
        file: "catalogue/primary/240pTest.json",
        pointer: "/updated",
        line: 13,
        column: 14,
        message: "(1) is earlier than /release_date (1300000000)",
      },
      {
        code: "WRONG_TYPE",
        severity: "error",
        file: "catalogue/primary/ZapShot.json",
        pointer: "/zip_size",
        line: 15,
        column: 15,
        message: 'must be integer (is string "12")',
      },
      expect.objectContaining({ code: "JSON_SYNTAX", pointer: "", line: 3, column: 1 }),
      expect.objectContaining({ code: "UNKNOWN_FIELD", pointer: "/odd, key", line: 16, column: 15 }),
    ]);
    expect(Object.keys(report.problems[1]!)).toEqual([
      "code",
      "severity",
      "file",
      "pointer",
      "line",
      "column",
      "message",
    ]);
  });

  it("json on a good build: ok, the summary, exit 0; problems without a line have none", () => {
    const catalogue = copyFixture("basic");
    writeFiles(catalogue, { "primary/240pTest.json": "\ufeff" + JSON.stringify(manifest("240pTest")) });
    const run = shopfront(join(catalogue, ".."), "build", "--format", "json");
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(run.stdout)).toEqual({
      ok: true,
      problems: [
        {
          code: "BYTE_ORDER_MARK",
          severity: "warning",
          file: "catalogue/primary/240pTest.json",
          pointer: "",
          message: expect.any(String),
        },
      ],
      summary: {
        hosts: 2,
        packages: 5,
        // The file index (entry.json and its one shard) is written beside the build's files.
        files: [...readTree(join(catalogue, "..", "dist")).keys()].filter((path) => !isFileIndexPath(path)).length,
        mode: { kind: "full", reason: "no previous build" },
        changedPackages: 5,
        filesWritten: expect.any(Number),
        out: "dist",
        seconds: expect.any(Number),
      },
    });
    const valid = JSON.parse(shopfront(join(catalogue, ".."), "validate", "--format", "json").stdout) as object;
    expect(valid).toMatchObject({ ok: true, summary: { hosts: 2, packages: 5, seconds: expect.any(Number) } });
  });

  it("refuses an unknown format as a usage error", () => {
    expect(shopfront(brokenProject(), "validate", "--format", "xml")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Allowed choices are text, json, github"),
    });
  });
});

describe("--format for check (the binary)", () => {
  const run = promisify(execFile);

  async function check(cwd: string, base: string, format: string) {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, "check", base, "--format", format], { cwd });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const failed = e as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  it("json: the rows and their results; github: a command per failed row, then the table", async () => {
    const cwd = join(copyFixture("basic"), "..");
    expect(shopfront(cwd, "build").code).toBe(0);
    const server = await servePreview({ dir: join(cwd, "dist"), host: "127.0.0.1", port: 0 });
    try {
      const good = await check(cwd, server.url, "json");
      expect(good.code).toBe(0);
      const report = JSON.parse(good.stdout) as { ok: boolean; summary: { failed: number }; rows: object[] };
      expect(report).toMatchObject({ ok: true, problems: [], summary: { failed: 0 } });
      expect(report.rows.length).toBeGreaterThan(5);
      expect(report.rows[0]).toMatchObject({ outcome: "pass", checked: expect.any(Number) });

      // The catalogue now has another snake than the one the server still serves.
      writeFiles(join(cwd, "catalogue"), { "primary/snake.json": manifest("snake") });
      const bad = await check(cwd, server.url, "json");
      expect(bad.code).toBe(1);
      const failed = JSON.parse(bad.stdout) as {
        ok: boolean;
        rows: { outcome: string; first?: object }[];
        summary: { older?: object };
      };
      expect(failed.ok).toBe(false);
      // An edited catalogue against the build of the one before: the served build is the older one.
      expect(failed.summary.older).toBeDefined();
      expect(failed.rows.filter((r) => r.outcome === "fail")).toContainEqual(
        expect.objectContaining({ first: expect.objectContaining({ target: "/v1/primary/package/snake" }) }),
      );

      const github = await check(cwd, server.url, "github");
      expect(github.code).toBe(1);
      const lines = github.stdout.split("\n");
      expect(lines[0]).toMatch(/^::error title=[^:]+::FAIL \d+ of \d+, first: GET \//);
      expect(lines.at(-3)).toMatch(/checks failed$/);
      expect(lines.at(-2)).toMatch(/^hint: the deployment is likely older than the catalogue/);
    } finally {
      await server.close();
    }
  });
});

describe("a text report", () => {
  const problem = (severity: Problem["severity"], file: string): Problem => ({
    code: "HBB_LEFT_OUT",
    severity,
    file,
    pointer: "",
    message: severity,
  });

  it("lists errors first, then warnings, then notices, and counts each kind at the end", () => {
    const problems = [
      problem("notice", "a.json"),
      problem("warning", "b.json"),
      problem("error", "c.json"),
      problem("warning", "d.json"),
    ];
    expect(formatProblems(problems, (f) => f, 0)).toEqual([
      "c.json: error",
      "b.json: warning (warning)",
      "d.json: warning (warning)",
      "a.json: notice (notice)",
    ]);
    expect(formatProblemCount(problems)).toBe("1 error, 2 warnings and 1 notice in 4 files");
  });
});
