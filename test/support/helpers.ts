// Shared by the tests: temporary folders, fixture catalogues, and reading a built tree.
import type { ConformanceRow } from "../../src/routes/conformanceRows.js";
import type { RunResult } from "../../src/check/runConformance.js";
import { phaseOf } from "../../src/routes/publishOrder.js";
import { isFileIndexPath } from "../../src/routes/routeTable.js";
import { loadCatalogue } from "../../src/load/loadCatalogue.js";
import type { Problem } from "../../src/catalogue/problems.js";
import type { RenderedPackage } from "../../src/render/renderApi.js";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import fse from "fs-extra";
import { afterAll } from "vitest";

export const ROOT = resolve(import.meta.dirname, "..", "..");
export const FIXTURES = join(ROOT, "test", "fixtures");
/** The compiled CLI (`npm run compile`, which `npm test` runs first). */
export const BIN = join(ROOT, "lib", "cli.js");

/**
 * The load step of a small catalogue, keeping every package it hands on (a fixture's are few): its
 * problems, and when it has no error its hosts' ids and each host's packages in the order handed on.
 */
export async function loadPackages(
  catalogueDir: string,
): Promise<{ problems: Problem[]; hosts?: string[]; packages?: Map<string, RenderedPackage[]> }> {
  let hosts: string[] = [];
  const packages = new Map<string, RenderedPackage[]>();
  const { problems, sources } = await loadCatalogue(catalogueDir, undefined, {
    onHosts: (hostsFile) => {
      hosts = hostsFile.hosts.map((h) => h.id);
    },
    onPackage: (host, { pkg }) => {
      let list = packages.get(host);
      if (!list) packages.set(host, (list = []));
      list.push(pkg);
    },
  });
  return sources ? { problems, hosts, packages } : { problems };
}

/** The real binary, as a maintainer runs it in `cwd`: its exit code and output, colour off. */
export function shopfront(cwd: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  if (!existsSync(BIN)) throw new Error("lib/cli.js is missing: run `npm run compile` (npm test does)");
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The real binary run without blocking this process, for tests whose own servers must keep
 * answering it; `env` adds to the environment, and a variable given as undefined is left out.
 */
export function shopfrontAsync(
  cwd: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!existsSync(BIN)) throw new Error("lib/cli.js is missing: run `npm run compile` (npm test does)");
  const childEnv = Object.fromEntries(
    Object.entries({ ...process.env, NO_COLOR: "1", ...env }).filter(([, value]) => value !== undefined),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
/** Writes a made-up catalogue: `node GEN_CATALOGUE DIR PACKAGES [HOSTS] [SEED] [--coders=real] [--stats]`. */
export const GEN_CATALOGUE = join(ROOT, "scripts", "gen-catalogue.mjs");

const made: string[] = [];
// Removing a test file's trees (builds of thousands of files, each slot's) takes long on a busy machine.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}, 300_000);

/** A fresh temporary folder, removed when the test file has run. */
export function tempDir(prefix = "shopfront-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * A fresh temporary folder in memory (/dev/shm) where there is one: for tests that build many
 * times and only need file system semantics (rename, links), not the disk's speed.
 */
export function memoryTempDir(prefix = "shopfront-"): string {
  const dir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A copy of test/fixtures/<name>/catalogue in a temporary folder, to mutate freely. */
export function copyFixture(name: string): string {
  const dir = join(tempDir(), "catalogue");
  fse.copySync(join(FIXTURES, name, "catalogue"), dir);
  return dir;
}

/**
 * A copy of the conformance fixture with package files: four of its packages given zips and
 * homebrew folders on two hosts (test/fixtures/conformance/make-package-files.mjs writes them).
 */
export function copyConformanceWithFiles(): string {
  const dir = copyFixture("conformance");
  fse.copySync(join(FIXTURES, "conformance", "with-files"), dir);
  return dir;
}

/** Writes files under `root`: objects as pretty JSON, strings and bytes as they are. */
export function writeFiles(root: string, files: Record<string, unknown>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    const data =
      typeof content === "string" || content instanceof Uint8Array ? content : `${JSON.stringify(content, null, 2)}\n`;
    writeFileSync(full, data);
  }
}

export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** A valid manifest for `name`, with `changes` applied (a value of undefined removes the field). */
export function manifest(name: string, changes: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = {
    category: "utilities",
    coder: "Test Coder",
    contributors: "",
    controllers: "w",
    display_name: `Display ${name}`,
    extracted: 2048,
    internal_name: name,
    long_description: "Long description.",
    package_type: "dol",
    release_date: 1300000000,
    short_description: "Short description",
    updated: 1300000001,
    version: "1.0",
    zip_size: 1024,
  };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base;
}

/** Every file under `dir` (following `dir` itself if it is a link), sorted, with its bytes. */
export function readTree(dir: string, options: { index?: boolean } = {}): Map<string, Buffer> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    // The signed index's own files (entry.json holds the build's time) only when asked for: the CLI's
    // builds write them and the core's do not, and test/unit/fileIndex.test.ts checks them.
    .filter((path) => options.index === true || !isFileIndexPath(path))
    .sort();
  return new Map(files.map((f) => [f, readFileSync(join(dir, f))]));
}

/**
 * What a rebuild killed while it wrote the live output in place may leave (src/write/writeOutput.ts's
 * applyInPlace), as a problem, or undefined when it holds: every file is whole, the old one or the new
 * one; the files were written in publishOrder.ts's phases, so no file is new while one of an earlier
 * phase is still old or missing; and a file the build removes is gone only once every file is new.
 */
export function partlyRebuilt(
  now: ReadonlyMap<string, Buffer>,
  old: ReadonlyMap<string, Buffer>,
  fresh: ReadonlyMap<string, Buffer>,
): string | undefined {
  for (const [path, bytes] of now)
    if (!old.get(path)?.equals(bytes) && !fresh.get(path)?.equals(bytes))
      return `${path} is neither the old nor the new file`;
  const written = [...fresh].filter(([path, bytes]) => !old.get(path)?.equals(bytes));
  const done = written.filter(([path, bytes]) => now.get(path)?.equals(bytes));
  const pending = written.filter(([path, bytes]) => !now.get(path)?.equals(bytes));
  const phase = (path: string) => phaseOf(path) ?? 0;
  const lastDone = done.reduce((at, [path]) => Math.max(at, phase(path)), -1);
  const early = pending.find(([path]) => phase(path) < lastDone);
  if (early) return `${early[0]} is not written yet, but a file of a later phase is`;
  const removed = [...old.keys()].filter((path) => !fresh.has(path));
  if (pending.length > 0 && removed.some((path) => !now.has(path)))
    return `a file is removed before ${pending[0]![0]} was written`;
  return undefined;
}

/**
 * The failures of one conformance row that the host has not declared it cannot avoid, as lines. A
 * declared row may fail, but a search the host cannot run must still be a 404, never a wrong list.
 */
export function undeclaredFailures(
  result: RunResult,
  row: ConformanceRow,
  cannot: Partial<Record<ConformanceRow, string>> = {},
): string[] {
  return result.failures
    .filter((f) => f.row === row)
    .filter((f) => !(row in cannot) || (row === "v2-query" && !/^status 404,/.test(f.reason)))
    .map((f) => `${f.method} ${f.target}: ${f.reason}`);
}

/** A package whose every text field tries to break out of the page. */
export const HOSTILE_TEXT = {
  display_name: `"><img src=x onerror=alert(1)>`,
  coder: `<script>alert(1)</script> & "co'"`,
  short_description: `<a href="javascript:alert(1)">click</a>`,
  long_description: `<script>alert(1)</script>\n"><img src=x onerror=alert(1)>\n  javascript:alert(1)\n\n<a href="javascript:alert(1)">x</a>`,
  version: `1.0</td><script>alert(1)</script>`,
  contributors: `'><svg onload=alert(1)>`,
};

export function hostileManifest(name = "evil"): Record<string, unknown> {
  return manifest(name, HOSTILE_TEXT);
}
