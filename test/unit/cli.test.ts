// The real binary, as a maintainer runs it: exit codes, messages relative to the working folder,
// the summary line, and an untouched output after a failed build.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, copyFixture, manifest, readTree, shopfront, tempDir, writeFiles } from "../support/helpers.js";
import { UNSIGNED_NOTE } from "../../src/cli/commands/build.js";
import { isFileIndexPath } from "../../src/routes/routeTable.js";

/** What a build without a signing key says on stderr (docs/trust.md). */
const UNSIGNED = `${UNSIGNED_NOTE}\n`;

/** A project folder holding a copy of the basic fixture as `catalogue/`. */
function project(): string {
  return join(copyFixture("basic"), "..");
}

describe("shopfront (the binary)", () => {
  it("builds with the default folders and prints a one-line summary", () => {
    const cwd = project();
    const run = shopfront(cwd, "build");
    expect(run).toMatchObject({ code: 0, stderr: UNSIGNED });
    // The count is every file written: package files, each host's list, filtered lists and empty list, the host list, the 404 body.
    const files = readTree(join(cwd, "dist"));
    expect([...files.keys()]).toEqual(
      expect.arrayContaining([
        "404.json",
        "v1/hosts",
        "v1/primary/packages",
        "v1/primary/empty",
        "v1/themes/category/themes/packages",
      ]),
    );
    expect(run.stdout).toMatch(
      new RegExp(
        `^built 2 hosts, 5 packages, ${[...files.keys()].filter((path) => !isFileIndexPath(path)).length} files in \\d+\\.\\d s into dist \\(full build: no previous build\\)\n$`,
      ),
    );
  });

  it("says that a build which only signed the file index signed it, not that nothing changed", () => {
    const cwd = project();
    shopfront(cwd, "build");
    const keys = join(tempDir(), "keys");
    expect(shopfront(cwd, "key", "new", "--out", keys).code).toBe(0);
    const key = join(
      keys,
      readdirSync(keys).find((f) => f !== "minisign.pub")!,
    );
    const signed = shopfront(cwd, "build", "--signing-key", key);
    expect(signed.stdout).toMatch(
      /^built 2 hosts, 5 packages \(nothing changed; the file index signed\) in \d+\.\d s into dist\n$/,
    );
    expect(shopfront(cwd, "build", "--signing-key", key).stdout).toMatch(
      /\(nothing changed\) in \d+\.\d s; dist is up to date\n$/,
    );
  });

  it("says what a rebuild reused", () => {
    const cwd = project();
    shopfront(cwd, "build");
    expect(shopfront(cwd, "build").stdout).toMatch(
      /^built 2 hosts, 5 packages \(nothing changed\) in \d+\.\d s; dist is up to date\n$/,
    );
    const before = readTree(join(cwd, "dist"));
    // snake moves from games by Fixture Coder to manifest()'s utilities by Test Coder: its file, its
    // host's list, and the filtered lists it leaves and joins are written, with their site pages
    // (the package's, the host's list and search index, the categories' and coders', the host's feeds
    // and the home page, whose newest releases show its category and coder), and nothing else.
    writeFiles(join(cwd, "catalogue"), { "primary/snake.json": manifest("snake", { version: "2" }) });
    // Today's contents list the package too; its featured app is the day's pick, which may move or not.
    const built = shopfront(cwd, "build").stdout;
    const after = readTree(join(cwd, "dist"));
    const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
    // The file index's own files are written beside the build's, not counted among them.
    const changed = paths.filter(
      (path) => !isFileIndexPath(path) && !before.get(path)?.equals(after.get(path) ?? Buffer.alloc(0)),
    );
    expect(built).toMatch(
      new RegExp(
        `^built 2 hosts, 5 packages \\(1 changed, ${changed.length} files written\\) in \\d+\\.\\d s into dist\\n$`,
      ),
    );
    // The host's search shard is named by its content's hash: the edited one goes and its new one comes.
    const shard = (path: string) => /^browse\/primary\/search\/[0-9a-f]+\.json$/.test(path);
    expect(changed.filter(shard).map((path) => [before.has(path), after.has(path)])).toEqual(
      expect.arrayContaining([
        [true, false],
        [false, true],
      ]),
    );
    expect(changed.filter(shard)).toHaveLength(2);
    expect(changed.filter((path) => !path.endsWith("/featured-app") && !shard(path))).toEqual([
      "api/v3/contents",
      "api/v4/contents",
      "browse/primary/category/games/index.html",
      "browse/primary/category/utilities/index.html",
      "browse/primary/coder/4669787475726520436f646572/index.html", // Fixture Coder
      "browse/primary/coder/5465737420436f646572/index.html", // Test Coder
      "browse/primary/feed.atom", // snake is among the host's newest, with its new version
      "browse/primary/feed.jsonfeed",
      "browse/primary/index.html",
      "browse/primary/package/snake/index.html",
      "browse/primary/search.json",
      "index.html",
      "v1/primary/category/games/coder/4669787475726520436f646572/packages", // Fixture Coder
      "v1/primary/category/games/packages",
      "v1/primary/category/utilities/coder/5465737420436f646572/packages", // Test Coder
      "v1/primary/category/utilities/packages",
      "v1/primary/coder/4669787475726520436f646572/packages",
      "v1/primary/coder/5465737420436f646572/packages",
      "v1/primary/package/snake",
      "v1/primary/packages",
    ]);
    expect(paths.filter((path) => !after.has(path) && !shard(path))).toEqual([]);
    expect(shopfront(cwd, "build", "--force").stdout).toMatch(/\(full build: --force\)\n$/);
  });

  it("--quiet prints nothing on success", () => {
    expect(shopfront(project(), "build", "--quiet")).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("reports three corrupted manifests as three named problems, exits 1 and leaves dist untouched", () => {
    const cwd = project();
    expect(shopfront(cwd, "build").code).toBe(0);
    const before = readTree(join(cwd, "dist"));
    writeFiles(join(cwd, "catalogue"), {
      "primary/snake.json": '{"internal_name": "snake",',
      "primary/ZapShot.json": manifest("ZapShot", { zip_size: "12" }),
      "themes/dark-blue.json": manifest("dark-blue", { rating: "5" }),
    });
    const run = shopfront(cwd, "build");
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.split("\n")).toEqual([
      'catalogue/primary/ZapShot.json: /zip_size must be integer (is string "12")',
      "catalogue/primary/snake.json: line 1, column 27: expected a property name in double quotes, found the end of the file",
      "catalogue/themes/dark-blue.json: /rating is computed by the build from catalogue/stats/<host>.json and must not be in a manifest",
      "3 errors in 3 files; nothing was written",
      "",
    ]);
    expect(readTree(join(cwd, "dist"))).toEqual(before);
  });

  it("validate checks without writing anything", () => {
    const cwd = project();
    const run = shopfront(cwd, "validate", "--catalogue", "catalogue");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^valid: 2 hosts, 5 packages in \d+\.\d s\n$/);
    expect(existsSync(join(cwd, "dist"))).toBe(false);
    writeFileSync(join(cwd, "catalogue", "primary", "snake.json"), "");
    expect(shopfront(cwd, "validate")).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("catalogue/primary/snake.json: is empty"),
    });
  });

  it("prints warnings and still builds", () => {
    const cwd = project();
    writeFiles(join(cwd, "catalogue"), { "primary/snake.json": manifest("snake", { updated: 1 }) });
    const run = shopfront(cwd, "build");
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "catalogue/primary/snake.json: /updated (1) is earlier than /release_date (1300000000) (warning)\n1 warning in 1 file\n",
    );
  });

  it("exits 2 on a usage error", () => {
    const cwd = project();
    expect(shopfront(cwd, "build", "--no-such-option")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("unknown option '--no-such-option'"),
    });
    expect(shopfront(cwd, "build", "--catalogue", "missing")).toMatchObject({
      code: 2,
      stderr: "error: cannot read the catalogue missing: there is no such folder\n",
    });
    writeFiles(cwd, { "taken/index.html": "x" });
    expect(shopfront(cwd, "build", "--out", "taken")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("is not a shopfront output"),
    });
  });

  it("serve on a port in use: one line suggesting another port, exit 2", async () => {
    const cwd = project();
    expect(shopfront(cwd, "build", "--quiet").code).toBe(0);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      expect(shopfront(cwd, "serve", "--port", String(port))).toEqual({
        code: 2,
        stdout: "",
        stderr: `error: port ${port} is in use on 127.0.0.1: pick another with --port ${port + 1}, or --port 0 for any free one\n`,
      });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it("serve: --dir conflicts with --watch, which --catalogue and --out imply (exit 2)", () => {
    const cwd = project();
    const conflict = "error: option '--dir <dir>' cannot be used with option '--watch'\n";
    expect(shopfront(cwd, "serve", "--watch", "--dir", "site")).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(new RegExp(`^${conflict}`)),
    });
    expect(shopfront(cwd, "serve", "--dir", "site", "--out", "site")).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(new RegExp(`^${conflict}`)),
    });
    // --catalogue alone makes serve watch: it builds that catalogue first.
    expect(shopfront(cwd, "serve", "--catalogue", "missing")).toMatchObject({
      code: 2,
      stderr: "error: cannot read the catalogue missing: there is no such folder\n",
    });
  });

  it("serve --host still works, as --listen, with a note that it is deprecated", async () => {
    const cwd = project();
    expect(shopfront(cwd, "build", "--quiet").code).toBe(0);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      // The port in use ends the command at once, and its message names the address --host gave.
      expect(shopfront(cwd, "serve", "--host", "127.0.0.1", "--port", String(port))).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "note: --host is deprecated here; use --listen\n" +
          `error: port ${port} is in use on 127.0.0.1: pick another with --port ${port + 1}, or --port 0 for any free one\n`,
      });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    expect(shopfront(cwd, "serve", "--host", "192.0.2.1", "--port", "0")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "note: --host is deprecated here; use --listen\n" +
        "error: --listen 192.0.2.1 is not an address of this machine; 127.0.0.1 and 0.0.0.0 always are\n",
    });
  });

  it.each([
    [
      ["build", "--max-problems", "many"],
      "option '--max-problems <n>' argument 'many' is invalid. expected a whole number, 0 or more",
    ],
    [
      ["validate", "--max-problems", "-1"],
      "option '--max-problems <n>' argument '-1' is invalid. expected a whole number, 0 or more",
    ],
    [["serve", "--port", "65536"], "option '--port <port>' argument '65536' is invalid. expected 0 to 65535"],
    [["serve", "--port", "80.5"], "option '--port <port>' argument '80.5' is invalid. expected 0 to 65535"],
    [
      ["check", "http://127.0.0.1:9", "--concurrency", "0"],
      "option '--concurrency <n>' argument '0' is invalid. expected 1 to 256",
    ],
    [
      ["import", "api", "http://127.0.0.1:9", "--concurrency", "65"],
      "option '--concurrency <n>' argument '65' is invalid. expected 1 to 64",
    ],
    [
      ["import", "api", "http://127.0.0.1:9", "--timeout", "1e3"],
      "option '--timeout <seconds>' argument '1e3' is invalid. expected 1 to 3600",
    ],
  ])("commander rejects a bad number with exit 2 and says what it expected: %j", (args, message) => {
    const run = shopfront(project(), ...args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr.split("\n")[0]).toBe(`error: ${message}`);
  });

  it("exits 2 on options that conflict", () => {
    const cwd = project();
    const run = shopfront(cwd, "import", "api", "--from-files", "dist", "--timeout", "5");
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe(
      "error: option '--from-files <dir>' cannot be used with option '--timeout <seconds>'",
    );
    expect(shopfront(cwd, "import", "api", "--concurrency", "2", "--from-files", "dist")).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /^error: option '--from-files <dir>' cannot be used with option '--concurrency <n>'\n/,
      ),
    });
  });

  it("serve --watch prints each build's summary, or its problems and what is still served", async () => {
    const cwd = project();
    const child = spawn(process.execPath, [BIN, "serve", "--watch", "--port", "0"], {
      cwd,
      env: { ...process.env, NO_COLOR: "1" },
    });
    const output = { stdout: "", stderr: "" };
    child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
    const until = async (stream: "stdout" | "stderr", pattern: RegExp) => {
      const deadline = Date.now() + 15_000;
      while (!pattern.test(output[stream])) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} in ${stream}: ${JSON.stringify(output)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      await until("stdout", /rebuilt on every change to catalogue \(Ctrl-C to stop\)\n/);
      expect(output.stdout).toMatch(
        /^built 2 hosts, 5 packages, \d+ files in \d+\.\d s into dist \(full build: no previous build\)\nserving dist at http:\/\/127\.0\.0\.1:\d+, rebuilt/,
      );
      writeFiles(join(cwd, "catalogue"), { "primary/snake.json": manifest("snake", { zip_size: "12" }) });
      await until("stderr", /fix the catalogue\n/);
      expect(output.stderr).toBe(
        'catalogue/primary/snake.json: /zip_size must be integer (is string "12")\n' +
          "1 error in 1 file; nothing was written\n" +
          "still serving the last good build; fix the catalogue\n",
      );
    } finally {
      child.kill("SIGINT");
    }
    expect(await closed).toBe(0);
  });

  it("prints its version", () => {
    expect(shopfront(project(), "--version")).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/),
    });
  });
});
