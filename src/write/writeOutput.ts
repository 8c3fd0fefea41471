// Writes a build's files into the output, so that a reader, a web server or a killed build sees
// either whole trees or whole files, never part of one.
//
// `dist` is a symbolic link to one of two slots in a hidden sibling folder, `.dist.shopfront/a` and
// `.dist.shopfront/b`. A full build writes the slot that is not live (the spare), then renames a new
// link over `dist`: rename(2) replaces the link in one step, so the whole old tree is replaced by the
// whole new one. (Renaming two real folders would leave a moment with no `dist` at all, and Node has
// no renameat2(RENAME_EXCHANGE).) A rebuild changes a few files of the live slot in place, each
// written beside it and renamed over it, in the order a deploy uploads them (applyInPlace): the
// spare is not brought up to date, since linking a second tree of 300,000 files cost more than the
// edit itself (docs/speed.md). A file is never changed in place, only replaced by a rename, so a
// stored package file a full build linked from the live slot is never changed under the other slot.
// Within a slot, a package file at an alias's path (SameAs) is a hard link to the stored file:
// written after it, replaced with it.
import {
  closeSync,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "../util/errors.js";
import { acquireLock } from "../util/fileLock.js";
import type { FileContent, OutputFile } from "../render/renderApi.js";
import { checkMemory } from "../util/memory.js";
import { removeInBackground } from "./removeTree.js";
import { phaseOf } from "../routes/publishOrder.js";

export const SLOTS = ["a", "b"] as const;
export type Slot = (typeof SLOTS)[number];

export interface OutputLayout {
  /** The output path the user named, absolute; a symbolic link to the live slot. */
  out: string;
  /** The hidden sibling folder that holds the slots, the lock and the build state. */
  home: string;
}

export function outputLayout(out: string): OutputLayout {
  const absolute = resolve(out);
  return { out: absolute, home: join(dirname(absolute), `.${basename(absolute)}.shopfront`) };
}

function linkTarget(layout: OutputLayout, slot: Slot): string {
  return `${basename(layout.home)}/${slot}`;
}

type OutputState = { kind: "missing" } | { kind: "empty-folder" } | { kind: "published"; slot: Slot };

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
    if (slot) return { kind: "published", slot };
    throw new UsageError(
      `${layout.out} is a symbolic link to ${target}, not a shopfront output; remove it or choose another --out`,
    );
  }
  if (stats.isDirectory() && readdirSync(layout.out).length === 0) return { kind: "empty-folder" };
  throw new UsageError(
    `${layout.out} already exists and is not a shopfront output (shopfront makes it a link to ${linkTarget(layout, "a")}); move it away or choose another --out`,
  );
}

/** The output while this build holds its lock. */
export interface LockedOutput {
  layout: OutputLayout;
  /** The live slot, if the output exists. */
  live?: Slot;
  /** The slot this build writes. */
  spare: Slot;
  emptyFolder: boolean;
}

export function slotDir(output: LockedOutput, slot: Slot): string {
  return join(output.layout.home, slot);
}

/** Inspects the output, takes its lock, runs `work`, releases the lock. */
export async function withOutput<T>(out: string, work: (output: LockedOutput) => Promise<T>): Promise<T> {
  const layout = outputLayout(out);
  inspectOutput(layout);
  mkdirSync(layout.home, { recursive: true });
  const release = acquireLock(join(layout.home, "lock"), "shopfront build", layout.out);
  try {
    const state = inspectOutput(layout);
    const trash = removeLeftovers(layout);
    const live = state.kind === "published" ? state.slot : undefined;
    try {
      return await work({
        layout,
        ...(live ? { live } : {}),
        spare: live === "a" ? "b" : "a",
        emptyFolder: state.kind === "empty-folder",
      });
    } finally {
      await trash;
    }
  } finally {
    release();
  }
}

/**
 * Makes the spare slot hold exactly `files`, each written as soon as it is taken (a full build renders
 * them as they are asked for), each folder made once, and each link to another file of the output
 * (SameAs) after every other file, so what it names is there. Returns every path written, in order.
 */
export function writeFresh(
  output: LockedOutput,
  files: Iterable<OutputFile>,
  progress?: { onFile: (done: number, total: number) => void; expected: number },
  digests?: WrittenDigests,
): string[] {
  const root = slotDir(output, output.spare);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root);
  const made = new Set<string>(["."]);
  const paths: string[] = [];
  const links: OutputFile[] = [];
  const write = (file: OutputFile) => {
    const folder = dirname(file.path);
    if (!made.has(folder)) {
      mkdirSync(join(root, folder), { recursive: true });
      for (let at = folder; at !== "." && !made.has(at); at = dirname(at)) made.add(at);
    }
    writeContent(join(root, file.path), file.content, root, digests, file.path);
  };
  for (const file of files) {
    checkMemory("writing the output");
    paths.push(file.path);
    if (typeof file.content === "object" && "sameAs" in file.content) links.push(file);
    else write(file);
    progress?.onFile(paths.length, Math.max(paths.length, progress.expected));
  }
  for (const file of links) write(file);
  return paths;
}

/**
 * Applies `changes` to the live slot in place (a null content deletes the path): each file written
 * beside it and renamed over it, so a reader gets the old file or the new one, never part of one;
 * the files in publishOrder.ts's phases, so none names a file not yet there, and the deletions last,
 * after `beforeDeletions` (the file index, which must not name a file gone).
 * A rebuild writes a few files of a large tree: making a whole second tree for it would cost more
 * than the build (docs/speed.md). The caller forgets the state first, so a build killed here leaves
 * the next one a full build.
 */
export function applyInPlace(
  output: LockedOutput,
  changes: ReadonlyMap<string, OutputFile["content"] | null>,
  digests?: WrittenDigests,
  beforeDeletions?: () => void,
): void {
  const live = slotDir(output, output.live!);
  const temp = join(output.layout.home, `tmp-${process.pid}`);
  const writes: { path: string; content: OutputFile["content"] }[] = [];
  const deletions: string[] = [];
  for (const [path, content] of changes) {
    if (content === null) deletions.push(path);
    else writes.push({ path, content });
  }
  // By phase, and within one each link to another file of the output (SameAs) after the file it names.
  const rank = ({ path, content }: (typeof writes)[number]) =>
    2 * (phaseOf(path) ?? 0) + (typeof content === "object" && "sameAs" in content ? 1 : 0);
  writes.sort((a, b) => rank(a) - rank(b));
  for (const { path, content } of writes) {
    const target = join(live, path);
    mkdirSync(dirname(target), { recursive: true });
    writeContent(temp, content, live, digests, path);
    renameSync(temp, target);
    // rename(2) of two links to one file does nothing: the link made for it stays behind.
    rmSync(temp, { force: true });
  }
  beforeDeletions?.();
  for (const path of deletions) {
    rmSync(join(live, path), { force: true });
    removeEmptyFolders(live, dirname(path));
  }
}

/** A folder for this build's own files on the output's file system (so they can be renamed into a slot). */
export function workFolder(output: LockedOutput): string {
  return join(output.layout.home, `work-${process.pid}`);
}

/** Points the output at the spare slot, in one rename. */
export function publish(output: LockedOutput): void {
  const { layout } = output;
  const next = join(layout.home, `link-${process.pid}`);
  symlinkSync(linkTarget(layout, output.spare), next);
  if (output.emptyFolder) rmdirSync(layout.out);
  renameSync(next, layout.out);
}

/** Removes `folder` (relative to `root`) and its parents while they are empty, as a full build would not have them. */
function removeEmptyFolders(root: string, folder: string): void {
  for (let at = folder; at !== "." && at !== "/" && at !== ""; at = dirname(at)) {
    try {
      rmdirSync(join(root, at));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      return;
    }
  }
}

/**
 * The size and SHA-256 of the files a build wrote from bytes it held (not the package files it
 * copied, moved or linked, nor the links at aliases' paths), by path: taken while writing, so the
 * file index (src/trust/) need not read them back.
 */
export type WrittenDigests = Map<string, { size: number; sha256: string }>;

/**
 * How a file on disk becomes a file of the output: linked when it is the live slot's own (a
 * package's stored file unchanged since the last build), moved in when the build made it, else copied.
 */
export function fileOperation(content: FileContent): "link" | "move" | "copy" {
  return content.link === true ? "link" : content.move === true ? "move" : "copy";
}

/**
 * Writes `content` at `path` for the slot `slot`, whose files a link to another file of the output
 * (SameAs) names; records its digest under `key` in `digests` when it is bytes the build held.
 */
export function writeContent(
  path: string,
  content: OutputFile["content"],
  slot: string,
  digests?: WrittenDigests,
  key?: string,
): void {
  if (typeof content !== "string" && "sameAs" in content) {
    linkSync(join(slot, content.sameAs), path);
    return;
  }
  if (typeof content !== "string" && "file" in content) {
    // A file on disk: linked when it is the live slot's own (a package's stored file unchanged since
    // the last build), moved in when the build made it (an archive it zipped, a list a rebuild's pass
    // wrote aside), else copied (the kernel copies it, never through memory; a catalogue's file is
    // never linked, so an edited source cannot change a published file).
    const put = { link: linkSync, move: renameSync, copy: copyFileSync }[fileOperation(content)];
    put(content.file, path);
    if (digests && key !== undefined && content.digest) digests.set(key, content.digest);
    return;
  }
  // Outputs are ASCII but the Homebrew Browser's list, whose string is its UTF-8 bytes as latin1.
  const fd = openSync(path, "w");
  try {
    writeSync(fd, content, null, "latin1");
  } finally {
    closeSync(fd);
  }
  if (digests && key !== undefined)
    digests.set(key, { size: content.length, sha256: createHash("sha256").update(content, "latin1").digest("hex") });
}

/**
 * Removes what a killed build left in the home folder: a half-made link, a temporary file, a state
 * not yet renamed into place (writeState in engine/buildState.ts writes it as `state.<pid>`), the
 * folder a build zips and unpacks package files in (`work-<pid>`), a slot set aside to be removed
 * (`trash-<pid>`, write/slotWriter.ts's setAside), which is removed beside the build: the promise
 * settles once it is gone.
 */
function removeLeftovers(layout: OutputLayout): Promise<void> {
  const trash: Promise<void>[] = [];
  for (const name of readdirSync(layout.home)) {
    // A slot set aside is as large as a build: removed beside this one, as setAside does, not before it.
    if (/^trash-\d+$/.test(name)) trash.push(removeInBackground(join(layout.home, name)));
    else if (/^(link|tmp|work)-\d+$|^state\.\d+$/.test(name))
      rmSync(join(layout.home, name), { recursive: true, force: true });
  }
  return Promise.all(trash).then(() => undefined);
}
