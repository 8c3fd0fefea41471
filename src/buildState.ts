// What a build remembers for the next one, kept beside the slots in .dist.shopfront/state.json:
// the signature of every input as built, each package's rendered length (to splice lists), the
// warnings, and which paths of the spare slot differ from the live one. Any doubt (no state, another
// shopfront or schema, another catalogue or target list, a killed build) means a full build.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Problem } from "./problems.js";
import { schemaTexts } from "./schemas.js";
import { VERSION } from "./version.js";
import type { Slot } from "./writeOutput.js";

/** What identifies a file's content without reading it; a changed ctime catches tools that restore mtime. */
export interface Signature {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export function signatureOf(stats: Stats): Signature {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

/** Per host, in list order: each package's name, rendered length and source signature (columns, to keep the file small). */
export interface HostState {
  names: string[];
  lengths: number[];
  size: number[];
  mtimeMs: number[];
  ctimeMs: number[];
  ino: number[];
}

export interface BuildState {
  format: 1;
  /** The tool, its schemas, the catalogue folder and the targets: any change makes a full build. */
  key: string;
  /** The slot the output link points to when this state is true. */
  live: Slot;
  /** Output paths where the spare slot differs from the live one; null when the spare is unknown. */
  spare: string[] | null;
  /** Wall-clock time just before the inputs were examined; files changed after it are re-read. */
  snapshotMs: number;
  hostsFile: Signature;
  /** Host ids in catalogue order. */
  hosts: string[];
  packages: Record<string, HostState>;
  /** Warnings of the inputs as built, reported again while they are unchanged. */
  warnings: Problem[];
  /** Output files in the live slot. */
  files: number;
}

const STATE_FILE = "state.json";

/** Clocks of files and of the process may disagree by a tick; inputs this close to the snapshot are re-read. */
export const RACY_MS = 2000;

export function isUnchanged(now: Signature, then: Signature, snapshotMs: number): boolean {
  return (
    now.size === then.size &&
    now.mtimeMs === then.mtimeMs &&
    now.ctimeMs === then.ctimeMs &&
    now.ino === then.ino &&
    now.ctimeMs < snapshotMs - RACY_MS &&
    now.mtimeMs < snapshotMs - RACY_MS
  );
}

/** The state in `home`, if it exists, parses and was written under `key`; anything else is no state. */
export function readState(home: string, key: string): BuildState | undefined {
  try {
    const state = JSON.parse(readFileSync(join(home, STATE_FILE), "utf8")) as BuildState;
    return state.format === 1 && state.key === key ? state : undefined;
  } catch {
    return undefined;
  }
}

export function writeState(home: string, state: BuildState): void {
  const temp = join(home, `${STATE_FILE}.${process.pid}`);
  writeFileSync(temp, JSON.stringify(state));
  renameSync(temp, join(home, STATE_FILE));
}

/** Called before a build changes a slot: if it is killed, the next build will not trust a stale state. */
export function forgetState(home: string): void {
  rmSync(join(home, STATE_FILE), { force: true });
}

/** Every file of the running shopfront's own code, so an edited build of the tool never reuses old output. */
function codeFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(js|ts)$/.test(f) && statSync(join(dir, f)).isFile())
    .sort();
}

/** A hash of a tool version, its schema texts and its code files (pure, for tests). */
export function computeToolKey(version: string, schemas: Iterable<readonly [string, string]>, code: Iterable<readonly [string, Uint8Array]>): string {
  const hash = createHash("sha256").update(version);
  for (const [name, text] of schemas) hash.update(`\0schema\0${name}\0${text}`);
  for (const [file, bytes] of code) hash.update(`\0code\0${file}\0`).update(bytes);
  return hash.digest("hex");
}

let toolHash: string | undefined;

/** The key of the running shopfront: its version, its schemas and its code. */
export function toolKey(): string {
  if (toolHash === undefined) {
    const dir = fileURLToPath(new URL(".", import.meta.url));
    toolHash = computeToolKey(VERSION, schemaTexts(), codeFiles(dir).map((file) => [file, readFileSync(join(dir, file))] as const));
  }
  return toolHash;
}

/** The key of a build: the tool, the catalogue folder and the targets. */
export function buildKey(catalogueDir: string, targets: readonly string[]): string {
  return createHash("sha256")
    .update(JSON.stringify([toolKey(), resolve(catalogueDir), [...new Set(targets)].sort()]))
    .digest("hex");
}
