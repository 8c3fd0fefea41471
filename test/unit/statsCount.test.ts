// `shopfront stats count` through the core on the fixture catalogue and logs: what counts, what the
// stats file becomes, idempotence (the same log again, gzipped, grown), --replace, a bad stats file;
// then once through the binary.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { countLogs, type CountLogsOptions } from "../../src/stats/countLogs.js";
import { MAX_DOWNLOADS } from "../../src/stats/countDownloads.js";
import { FailureError, UsageError } from "../../src/util/errors.js";
import { loadCatalogue } from "../../src/load/loadCatalogue.js";
import { copyFixture, FIXTURES, readJson, shopfront, tempDir, writeFiles } from "../support/helpers.js";

const LOGS = join(FIXTURES, "logs");
const PATTERN = "/hbb/{name}/{name}.zip";
const NOW = new Date("2026-11-23T21:00:00.123Z");

/** The basic catalogue (host primary: 240pTest, snake, snake-deluxe, ZapShot) and a folder for logs. */
function setUp(): { catalogue: string; logs: string } {
  const catalogue = copyFixture("basic");
  return { catalogue, logs: tempDir("shopfront-logs-") };
}

/** A fixture log copied under `name` into `dir`, or written from `content`. */
function log(dir: string, name: string, content: string | Buffer = readFileSync(join(LOGS, name))): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function count(catalogue: string, logs: string[], options: Partial<CountLogsOptions> = {}) {
  return countLogs({
    catalogueDir: catalogue,
    host: "primary",
    urlPatterns: [PATTERN],
    logs,
    format: "auto",
    replace: false,
    now: NOW,
    ...options,
  });
}

async function summaryOf(catalogue: string, logs: string[], options: Partial<CountLogsOptions> = {}) {
  const result = await count(catalogue, logs, options);
  expect(result.problems).toEqual([]);
  return result.summary!;
}

const statsPath = (catalogue: string) => join(catalogue, "stats", "primary.json");
const downloadsIn = (catalogue: string) =>
  Object.fromEntries(
    Object.entries(
      (readJson(statsPath(catalogue)) as { packages: Record<string, { downloads?: number }> }).packages,
    ).map(([name, entry]) => [name, entry.downloads]),
  );

/** A combined log line: one GET of `path` answered 200. */
const line = (path: string) => `203.0.113.7 - - [10/Oct/2026:13:55:36 +0000] "GET ${path} HTTP/1.1" 200 5 "-" "-"\n`;

const COMBINED_DOWNLOADS = { "240pTest": 1, snake: 3, "snake-deluxe": 2, ZapShot: 1 };

describe("stats count", () => {
  it("counts 200s and the first 206 per client of a combined log, and says why each other line was skipped", async () => {
    const { catalogue, logs } = setUp();
    const path = log(logs, "combined.log");
    const summary = await summaryOf(catalogue, [path]);
    expect(summary).toMatchObject({
      statsFile: "stats/primary.json",
      written: true,
      lines: 24,
      downloads: 7,
      packages: 4,
      skipped: { notGet: 4, status: 3, noMatch: 4, unknownPackage: 1, bot: 2, checker: 0, repeatedRange: 1 },
      unknownNames: { top: [["unknown-app", 1]], distinct: 1 },
      bad: 2,
      badExamples: [
        { file: path, line: 19, reason: "no [time] field" },
        { file: path, line: 20, reason: "a quote is not closed" },
      ],
      logs: [{ path, state: "counted", format: "combined", lines: 24, downloads: 7 }],
    });
    const content = readFileSync(path);
    expect(readJson(statsPath(catalogue))).toEqual({
      packages: {
        "240pTest": { downloads: 1 },
        snake: { downloads: 3 },
        "snake-deluxe": { downloads: 2 },
        ZapShot: { downloads: 1 },
      },
      counted: [
        {
          sha256: createHash("sha256").update(content).digest("hex"),
          bytes: content.length,
          file: "combined.log",
          countedAt: "2026-11-23T21:00:00Z",
          downloads: 7,
        },
      ],
    });
  });

  it("detects S3, CloudFront and Apache logs and counts them in one run", async () => {
    const { catalogue, logs } = setUp();
    const summary = await summaryOf(catalogue, [
      log(logs, "s3.log"),
      log(logs, "cloudfront.log"),
      log(logs, "apache.log"),
    ]);
    expect(summary.logs.map((l) => [l.format, l.lines, l.downloads])).toEqual([
      ["s3", 12, 4],
      ["cloudfront", 9, 4],
      ["combined", 4, 3],
    ]);
    expect(summary.skipped).toEqual({
      notGet: 5,
      status: 2,
      noMatch: 0,
      unknownPackage: 0,
      bot: 3,
      checker: 0,
      repeatedRange: 2,
    });
    expect(summary.bad).toBe(2);
    expect(downloadsIn(catalogue)).toEqual({ snake: 5, "snake-deluxe": 3, ZapShot: 3 });
  });

  it("reads a log in the --format given, and calls every line of another format bad", async () => {
    const { catalogue, logs } = setUp();
    const summary = await summaryOf(catalogue, [log(logs, "combined.log")], { format: "s3" });
    expect(summary).toMatchObject({ downloads: 0, bad: 24, written: true });
  });

  it("reads gzipped logs, and knows a gzipped copy of a counted log by its content", async () => {
    const { catalogue, logs } = setUp();
    const plain = readFileSync(join(LOGS, "combined.log"));
    const zipped = await summaryOf(catalogue, [log(logs, "access.log.1.gz", gzipSync(plain))]);
    expect(zipped.logs[0]).toMatchObject({ state: "counted", format: "combined", downloads: 7, bytes: plain.length });
    // A gzip stream under a name without .gz is still read as gzip.
    const again = await summaryOf(catalogue, [log(logs, "combined.log"), log(logs, "renamed", gzipSync(plain))]);
    expect(again.logs.map((l) => l.state)).toEqual(["already counted", "already counted"]);
    expect(again).toMatchObject({ downloads: 0, lines: 0, written: false });
    expect(downloadsIn(catalogue)).toEqual(COMBINED_DOWNLOADS);
  });

  it("counts a log once: run again it is skipped and the stats file is not rewritten; given twice, counted once", async () => {
    const { catalogue, logs } = setUp();
    const path = log(logs, "combined.log");
    await summaryOf(catalogue, [path, path, log(logs, "copy.log", readFileSync(path))]).then((s) =>
      expect(s.logs.map((l) => l.state)).toEqual(["counted", "already counted", "already counted"]),
    );
    const before = statSync(statsPath(catalogue)).mtimeMs;
    const text = readFileSync(statsPath(catalogue), "utf8");
    const again = await summaryOf(catalogue, [path]);
    expect(again).toMatchObject({ written: false, downloads: 0, logs: [{ state: "already counted" }] });
    expect(readFileSync(statsPath(catalogue), "utf8")).toBe(text);
    expect(statSync(statsPath(catalogue)).mtimeMs).toBe(before);
    expect(downloadsIn(catalogue)).toEqual(COMBINED_DOWNLOADS);
  });

  it("counts only the new lines of a log that grew since it was counted", async () => {
    const { catalogue, logs } = setUp();
    const lines = readFileSync(join(LOGS, "combined.log"), "utf8").split("\n");
    // Yesterday's access.log: the first 10 lines (snake twice, ZapShot, snake-deluxe twice by 206s).
    const path = log(logs, "access.log", lines.slice(0, 10).join("\n") + "\n");
    expect((await summaryOf(catalogue, [path])).downloads).toBe(5);
    writeFileSync(path, lines.join("\n"));
    const grown = await summaryOf(catalogue, [path]);
    expect(grown.logs[0]).toMatchObject({ state: "grown", lines: 14, downloads: 2 });
    expect(grown.badExamples[0]).toMatchObject({ line: 19 });
    expect(downloadsIn(catalogue)).toEqual(COMBINED_DOWNLOADS);
    const counted = (readJson(statsPath(catalogue)) as { counted: { bytes: number; downloads: number }[] }).counted;
    expect(counted.map((c) => [c.bytes, c.downloads])).toEqual([
      [Buffer.byteLength(lines.slice(0, 10).join("\n") + "\n"), 5],
      [Buffer.byteLength(lines.join("\n")), 2],
    ]);
    // The rotated file, with yesterday's and today's lines, is the grown log: nothing new.
    const rotated = await summaryOf(catalogue, [log(logs, "access.log.1.gz", gzipSync(lines.join("\n")))]);
    expect(rotated.logs[0]!.state).toBe("already counted");
  });

  it("passes over a line that was cut when the log was counted", async () => {
    const { catalogue, logs } = setUp();
    const text = readFileSync(join(LOGS, "combined.log"), "utf8");
    const cut = text.indexOf("\n", text.indexOf("\n") + 1) + 30; // inside line 3
    const path = log(logs, "access.log", text.slice(0, cut));
    expect((await summaryOf(catalogue, [path])).logs[0]).toMatchObject({ lines: 3, downloads: 2 });
    writeFileSync(path, text);
    const grown = await summaryOf(catalogue, [path]);
    expect(grown.logs[0]).toMatchObject({ state: "grown", lines: 21, downloads: 5 });
  });

  it("adds to existing downloads, keeps ratings and untouched entries, and stops at the schema's maximum", async () => {
    const { catalogue, logs } = setUp();
    writeFiles(catalogue, {
      "stats/primary.json": {
        packages: {
          snake: { downloads: 10, rating: "4" },
          ZapShot: { downloads: MAX_DOWNLOADS - 0 },
          "240pTest": { rating: "5" },
          gone: { downloads: 3, rating: "1" },
        },
      },
    });
    const summary = await summaryOf(catalogue, [log(logs, "combined.log")]);
    expect(summary.capped).toEqual(["ZapShot"]);
    expect((readJson(statsPath(catalogue)) as { packages: unknown }).packages).toEqual({
      "240pTest": { downloads: 1, rating: "5" },
      gone: { downloads: 3, rating: "1" },
      snake: { downloads: 13, rating: "4" },
      "snake-deluxe": { downloads: 2 },
      ZapShot: { downloads: MAX_DOWNLOADS },
    });
  });

  it("--replace sets the host's downloads to what the logs give, counting counted logs again", async () => {
    const { catalogue, logs } = setUp();
    const combined = log(logs, "combined.log");
    await summaryOf(catalogue, [combined]);
    const file = readJson(statsPath(catalogue)) as { packages: Record<string, object> };
    file.packages.snake = { downloads: 1000, rating: "4" };
    file.packages.gone = { downloads: 3 };
    writeFiles(catalogue, { "stats/primary.json": file });
    const summary = await summaryOf(catalogue, [log(logs, "apache.log"), combined], { replace: true });
    expect(summary.logs.map((l) => l.state)).toEqual(["counted", "counted"]);
    const after = readJson(statsPath(catalogue)) as { packages: unknown; counted: { file: string }[] };
    expect(after.packages).toEqual({
      "240pTest": { downloads: 1 },
      gone: { downloads: 3 },
      snake: { downloads: 5, rating: "4" },
      "snake-deluxe": { downloads: 2 },
      ZapShot: { downloads: 2 },
    });
    expect(after.counted.map((c) => c.file)).toEqual(["apache.log", "combined.log"]);
  });

  it("--replace gives 0 to the host's entries that these logs do not download", async () => {
    const { catalogue, logs } = setUp();
    writeFiles(catalogue, { "stats/primary.json": { packages: { "240pTest": { downloads: 9, rating: "3" } } } });
    await summaryOf(catalogue, [log(logs, "s3.log")], { replace: true });
    expect((readJson(statsPath(catalogue)) as { packages: unknown }).packages).toEqual({
      "240pTest": { downloads: 0, rating: "3" },
      snake: { downloads: 2 },
      "snake-deluxe": { downloads: 1 },
      ZapShot: { downloads: 1 },
    });
  });

  it("never adds a name the host does not have, however often it is requested", async () => {
    const { catalogue, logs } = setUp();
    const junk = Array.from(
      { length: 50 },
      (_, i) =>
        `192.0.2.1 - - [23/Nov/2026:06:25:01 +0000] "GET /hbb/app${i % 7}/app${i % 7}.zip HTTP/1.1" 200 1 "-" "x"`,
    ).concat(`192.0.2.1 - - [23/Nov/2026:06:25:01 +0000] "GET /hbb/__proto__/__proto__.zip HTTP/1.1" 200 1 "-" "x"`);
    const summary = await summaryOf(catalogue, [log(logs, "junk.log", junk.join("\n"))]);
    expect(summary).toMatchObject({ downloads: 0, skipped: { unknownPackage: 51 } });
    expect(summary.unknownNames.top).toEqual([
      ["app0", 8],
      ["app1", 7],
      ["app2", 7],
      ["app3", 7],
      ["app4", 7],
    ]);
    expect(summary.unknownNames.distinct).toBe(8);
    expect((readJson(statsPath(catalogue)) as { packages: object }).packages).toEqual({});
  });

  it("reports an invalid stats file with its pointer and leaves it as it was", async () => {
    const { catalogue, logs } = setUp();
    const bad = '{\n  "packages": { "snake": { "downloads": -1 } }\n}\n';
    writeFiles(catalogue, { "stats/primary.json": bad });
    const result = await count(catalogue, [log(logs, "combined.log")]);
    expect(result.summary).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({ file: "stats/primary.json", pointer: "/packages/snake/downloads", severity: "error" }),
    ]);
    expect(readFileSync(statsPath(catalogue), "utf8")).toBe(bad);
  });

  it("never runs twice at once on one host's stats: a live count's lock stops the second, a dead one's is taken over", async () => {
    const { catalogue, logs } = setUp();
    const lock = join(catalogue, ".stats-primary.lock");
    // A live holder: this very process, as another count on this machine would be.
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname() }));
    await expect(count(catalogue, [log(logs, "combined.log")])).rejects.toThrow(
      new FailureError(
        `another shopfront stats count (pid ${process.pid} on ${hostname()}) is writing ${statsPath(catalogue)}; run again when it has finished (its lock file is ${lock})`,
      ),
    );
    expect(existsSync(statsPath(catalogue))).toBe(false);
    // A holder that is gone (a count killed midway) leaves a lock that the next count takes over and releases.
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeFileSync(lock, JSON.stringify({ pid: Number(dead.stdout), host: hostname() }));
    await summaryOf(catalogue, [log(logs, "combined.log")]);
    expect(downloadsIn(catalogue)).toEqual(COMBINED_DOWNLOADS);
    expect(existsSync(lock)).toBe(false);
    // Hidden, so the catalogue's layout never sees it.
    expect((await loadCatalogue(catalogue)).problems).toEqual([]);
  });

  it("counts by default every URL the build serves a host's archives at: the Wii app's, today's clients', a host's under /hosts/<host>/", async () => {
    const { catalogue, logs } = setUp();
    const primary = log(
      logs,
      "primary.log",
      [
        "/hbb/snake/snake.zip",
        "/api/contents/snake/snake.zip",
        "/api/v4/contents/ZapShot/ZapShot.zip",
        "/api/v3/contents/ZapShot/ZapShot.zip",
        // Not an archive, or another host's.
        "/hbb/snake/icon.png",
        "/unzipped_apps/snake/apps/snake/boot.dol",
        "/hosts/primary/hbb/snake/snake.zip",
      ]
        .map(line)
        .join(""),
    );
    const summary = await summaryOf(catalogue, [primary], { urlPatterns: [] });
    expect(summary).toMatchObject({ downloads: 4, skipped: { noMatch: 3 } });
    expect(downloadsIn(catalogue)).toEqual({ snake: 2, ZapShot: 2 });

    const themes = log(
      logs,
      "themes.log",
      [
        "/hosts/themes/hbb/dark-blue/dark-blue.zip",
        "/hosts/themes/api/contents/dark-blue/dark-blue.zip",
        "/hbb/dark-blue/dark-blue.zip",
      ]
        .map(line)
        .join(""),
    );
    const counted = await summaryOf(catalogue, [themes], { host: "themes", urlPatterns: [] });
    expect(counted).toMatchObject({ downloads: 2, skipped: { noMatch: 1 } });
  });

  it("counts a download of any of several patterns given", async () => {
    const { catalogue, logs } = setUp();
    const path = log(
      logs,
      "two.log",
      ["/apps/snake.zip", "/mirror/ZapShot.zip", "/hbb/snake/snake.zip"].map(line).join(""),
    );
    const summary = await summaryOf(catalogue, [path], { urlPatterns: ["/apps/{name}.zip", "/mirror/{name}.zip"] });
    expect(summary).toMatchObject({ downloads: 2, skipped: { noMatch: 1 } });
    expect(downloadsIn(catalogue)).toEqual({ snake: 1, ZapShot: 1 });
  });

  it("refuses a host hosts.json does not declare, a pattern without {name}, a missing log", async () => {
    const { catalogue, logs } = setUp();
    const path = log(logs, "combined.log");
    await expect(count(catalogue, [path], { host: "nope" })).rejects.toThrow(UsageError);
    await expect(count(catalogue, [path], { urlPatterns: ["/hbb/snake.zip"] })).rejects.toThrow(
      /must contain \{name\}/,
    );
    await expect(count(catalogue, [join(logs, "missing.log")])).rejects.toThrow(UsageError);
    expect(existsSync(statsPath(catalogue))).toBe(false);
  });

  it("reports a broken gzip stream as failed and counts nothing of it", async () => {
    const { catalogue, logs } = setUp();
    const zipped = gzipSync(readFileSync(join(LOGS, "combined.log")));
    const summary = await summaryOf(catalogue, [
      log(logs, "broken.gz", zipped.subarray(0, zipped.length - 20)),
      log(logs, "s3.log"),
    ]);
    expect(summary.logs.map((l) => l.state)).toEqual(["failed", "counted"]);
    expect(summary.logs[0]!.error).toMatch(/unexpected end of file/);
    expect(downloadsIn(catalogue)).toEqual({ snake: 2, "snake-deluxe": 1, ZapShot: 1 });
    expect((readJson(statsPath(catalogue)) as { counted: unknown[] }).counted).toHaveLength(1);
  });
});

describe("shopfront stats count (the binary)", () => {
  it("prints the summary, then skips the log when run again; exits 2 on a bad host", () => {
    const cwd = join(copyFixture("basic"), "..");
    copyFileSync(join(LOGS, "combined.log"), join(cwd, "access.log.1"));
    const args = ["stats", "count", "access.log.1", "--host", "primary", "--url-pattern", PATTERN];
    const first = shopfront(cwd, ...args);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toBe(
      [
        "1 log counted: 24 lines read, 7 downloads of 4 packages added to catalogue/stats/primary.json",
        "  access.log.1: counted (combined, 24 lines, 7 downloads)",
        "skipped: 4 not GET, 3 not 200 or 206, 4 not a download path, 1 unknown package, 2 by bots, 1 repeated 206 (same client and file)",
        "unknown packages, not counted: unknown-app (1)",
        "2 bad lines, not counted:",
        "  access.log.1:19: no [time] field",
        "  access.log.1:20: a quote is not closed",
        "",
      ].join("\n"),
    );
    expect(shopfront(cwd, ...args).stdout).toBe(
      [
        "0 logs counted, 1 already counted: 0 lines read, 0 downloads of 0 packages (catalogue/stats/primary.json unchanged)",
        "  access.log.1: already counted, skipped",
        "",
      ].join("\n"),
    );
    const bad = shopfront(cwd, "stats", "count", "access.log.1", "--host", "nope", "--url-pattern", PATTERN);
    expect(bad).toMatchObject({ code: 2, stdout: "" });
    expect(bad.stderr).toMatch(/--host nope is not declared in hosts.json \(declared: primary, themes\)/);
  });

  it("reads --log-format, and still --format with a note that it is deprecated", () => {
    const cwd = join(copyFixture("basic"), "..");
    copyFileSync(join(LOGS, "combined.log"), join(cwd, "access.log.1"));
    const args = ["stats", "count", "access.log.1", "--host", "primary", "--url-pattern", PATTERN];
    // A combined log read as S3's: every line is bad, so nothing is counted.
    const asS3 = shopfront(cwd, ...args, "--log-format", "s3");
    expect(asS3).toMatchObject({ code: 0, stderr: "" });
    expect(asS3.stdout).toMatch(/^1 log counted: 24 lines read, 0 downloads .*\n {2}access\.log\.1: counted \(s3, /);
    const old = shopfront(cwd, ...args, "--replace", "--format", "combined");
    expect(old).toMatchObject({ code: 0, stderr: "note: --format is deprecated here; use --log-format\n" });
    expect(old.stdout).toMatch(
      /^1 log counted: 24 lines read, 7 downloads .*\n {2}access\.log\.1: counted \(combined, /,
    );
    expect(shopfront(cwd, ...args, "--format", "json")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("error: option '--format <format>' argument 'json' is invalid."),
    });
  });

  it("exits 1 and writes nothing when the stats file is invalid", () => {
    const cwd = join(copyFixture("basic"), "..");
    copyFileSync(join(LOGS, "combined.log"), join(cwd, "access.log"));
    writeFiles(join(cwd, "catalogue"), { "stats/primary.json": '{"packages": {"snake": {"rating": 4}}}' });
    const run = shopfront(cwd, "stats", "count", "access.log", "--host", "primary", "--url-pattern", PATTERN);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^catalogue\/stats\/primary\.json: \/packages\/snake\/rating .*\n/);
    expect(run.stderr).toMatch(/nothing was counted or written\n$/);
    expect(readFileSync(join(cwd, "catalogue", "stats", "primary.json"), "utf8")).toBe(
      '{"packages": {"snake": {"rating": 4}}}',
    );
  });
});
