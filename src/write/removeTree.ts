// Removes a folder tree on libuv's pool while the build goes on, with a bounded number of removals
// in flight. Node's own fs.promises.rm (recursive) lists a folder whole and starts a removal for
// every entry at once: a slot of a million packages (a folder of a million package objects) made it
// hold about 4 GB of pending requests.
import type { Dir } from "node:fs";
import { opendir, rmdir, unlink } from "node:fs/promises";
import { join } from "node:path";

/** Removals in flight at once: enough to keep the pool's threads busy, few enough to hold nothing. */
const IN_FLIGHT = 32;

/** Removes `root` and everything under it; resolves once it is gone (at once when it is not there). */
export async function removeTree(root: string): Promise<void> {
  for (;;) {
    let folder: Dir;
    try {
      folder = await opendir(root, { bufferSize: 1024 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code === "ENOTDIR") return gone(unlink(root));
      throw error;
    }
    await removeEntries(root, folder);
    try {
      await gone(rmdir(root));
      return;
    } catch (error) {
      // An entry the listing skipped while others were removed (POSIX leaves that open): list again.
      if ((error as NodeJS.ErrnoException).code !== "ENOTEMPTY") throw error;
    }
  }
}

/** Removes every entry `folder` lists, files and folders alike, IN_FLIGHT at a time. */
async function removeEntries(root: string, folder: Dir): Promise<void> {
  const pending = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  for await (const entry of folder) {
    const path = join(root, entry.name);
    const tracked: Promise<void> = (entry.isDirectory() ? removeTree(path) : gone(unlink(path)))
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => pending.delete(tracked));
    pending.add(tracked);
    if (pending.size >= IN_FLIGHT) await Promise.race(pending);
    if (failure) break;
  }
  await Promise.all(pending);
  if (failure) throw failure.error;
}

/** A removal that finds its file already gone has done its work. */
async function gone(removal: Promise<void>): Promise<void> {
  try {
    await removal;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/**
 * Removes `root` beside the work that goes on, never failing it: what cannot be removed now (a file
 * held open elsewhere, a folder made read-only) is a leftover the next build removes again
 * (writeOutput.ts's removeLeftovers). Resolves once the removal has ended, either way.
 */
export function removeInBackground(root: string): Promise<void> {
  return removeTree(root).catch(() => undefined);
}
