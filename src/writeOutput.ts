// Writes the rendered files so that the output folder changes atomically: a reader, a web server or
// a killed build only ever sees the complete old tree or the complete new one.
//
// `dist` is a symbolic link to one of two slots in a hidden sibling folder, `.dist.shopfront/a` and
// `.dist.shopfront/b`. A build writes the slot that is not live, then renames a new link over `dist`:
// rename(2) replaces the link in one step. (Renaming two real folders would leave a moment with no
// `dist` at all, and Node has no renameat2(RENAME_EXCHANGE).) The other slot keeps the previous build.
import { closeSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, rmdirSync, rmSync, symlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { FailureError, UsageError } from "./errors.js";
import type { OutputFile } from "./renderApi.js";

export const SLOTS = ["a", "b"] as const;
export type Slot = (typeof SLOTS)[number];

export interface OutputLayout {
  /** The output path the user named, absolute; a symbolic link to the live slot. */
  out: string;
  /** The hidden sibling folder that holds the slots, the lock and leftovers. */
  home: string;
}

export function outputLayout(out: string): OutputLayout {
  const absolute = resolve(out);
  return { out: absolute, home: join(dirname(absolute), `.${basename(absolute)}.shopfront`) };
}

function linkTarget(layout: OutputLayout, slot: Slot): string {
  return `${basename(layout.home)}/${slot}`;
}

type OutputState = { kind: "missing" } | { kind: "empty-folder" } | { kind: "live"; slot: Slot };

/** What is at the output path now; throws a UsageError for anything shopfront did not make. */
export function inspectOutput(layout: OutputLayout): OutputState {
  let stats;
  try {
    stats = lstatSync(layout.out);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    throw e;
  }
  if (stats.isSymbolicLink()) {
    const target = readlinkSync(layout.out);
    const slot = SLOTS.find((s) => target === linkTarget(layout, s));
    if (slot) return { kind: "live", slot };
    throw new UsageError(`${layout.out} is a symbolic link to ${target}, not a shopfront output; remove it or choose another --out`);
  }
  if (stats.isDirectory() && readdirSync(layout.out).length === 0) return { kind: "empty-folder" };
  throw new UsageError(
    `${layout.out} already exists and is not a shopfront output (shopfront makes it a link to ${linkTarget(layout, "a")}); move it away or choose another --out`,
  );
}

/** Writes `files` as the new content of `out`, atomically. */
export function writeOutput(out: string, files: readonly OutputFile[]): void {
  const layout = outputLayout(out);
  inspectOutput(layout);
  mkdirSync(layout.home, { recursive: true });
  const release = acquireLock(layout);
  try {
    const state = inspectOutput(layout);
    removeLeftovers(layout);
    const slot: Slot = state.kind === "live" && state.slot === "a" ? "b" : "a";
    const slotDir = join(layout.home, slot);
    rmSync(slotDir, { recursive: true, force: true });
    mkdirSync(slotDir);
    writeTree(slotDir, files);
    if (state.kind === "empty-folder") rmdirSync(layout.out);
    const next = join(layout.home, `link-${process.pid}`);
    symlinkSync(linkTarget(layout, slot), next);
    renameSync(next, layout.out);
  } finally {
    release();
  }
}

function writeTree(root: string, files: readonly OutputFile[]): void {
  const folders = new Set(files.map((f) => dirname(f.path)));
  for (const folder of [...folders].sort()) mkdirSync(join(root, folder), { recursive: true });
  for (const file of files) writeFile(join(root, file.path), file.content);
}

/** Up to this many characters of a JSON array are joined before one write. */
const CHUNK_CHARS = 1 << 20;

function writeFile(path: string, content: OutputFile["content"]): void {
  const fd = openSync(path, "wx");
  try {
    if (typeof content === "string") {
      writeSync(fd, content);
      return;
    }
    let chunk = "[";
    content.jsonArray.forEach((item, i) => {
      chunk += i === 0 ? item : `,${item}`;
      if (chunk.length >= CHUNK_CHARS) {
        writeSync(fd, chunk);
        chunk = "";
      }
    });
    writeSync(fd, `${chunk}]`);
  } finally {
    closeSync(fd);
  }
}

/** Removes what a killed build left in the home folder: a half-made link. */
function removeLeftovers(layout: OutputLayout): void {
  for (const name of readdirSync(layout.home)) {
    if (name.startsWith("link-")) rmSync(join(layout.home, name), { force: true });
  }
}

interface LockHolder {
  pid: number;
  host: string;
}

/**
 * Takes the output's lock, so two builds never write one slot. A lock left by a killed build (its
 * process is gone) is taken over; a live one makes this build fail at once with the holder's pid.
 */
function acquireLock(layout: OutputLayout): () => void {
  const path = join(layout.home, "lock");
  const me: LockHolder = { pid: process.pid, host: hostname() };
  for (;;) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const holder = readLock(path);
    if (holder && isAlive(holder)) {
      throw new FailureError(`another shopfront build (pid ${holder.pid} on ${holder.host}) is writing ${layout.out}; run again when it has finished`);
    }
    // Stale: move it aside under a name only this process uses, then check that what moved is the
    // lock that was judged stale and not a fresh one another build took meanwhile.
    const aside = `${path}.stale-${process.pid}`;
    try {
      renameSync(path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw e;
    }
    const moved = readLock(aside);
    if (moved && (moved.pid !== holder?.pid || moved.host !== holder.host) && isAlive(moved)) {
      // Put the other build's lock back (link never replaces a lock taken meanwhile) and give way.
      try {
        linkSync(aside, path);
      } finally {
        rmSync(aside, { force: true });
      }
      throw new FailureError(`another shopfront build (pid ${moved.pid}) started writing ${layout.out} at the same time; run again when it has finished`);
    }
    rmSync(aside, { force: true });
  }
}

function readLock(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    return typeof holder.pid === "number" && typeof holder.host === "string" ? { pid: holder.pid, host: holder.host } : undefined;
  } catch {
    // Unreadable or half-written by a build killed while taking it: treat as stale.
    return undefined;
  }
}

function isAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
