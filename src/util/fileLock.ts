// A lock file for a writer that must not run twice at once (a build over its output, a count over
// a stats file): taken with O_EXCL, holding the holder's pid and host, taken over when stale.
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { FailureError } from "./errors.js";

interface LockHolder {
  pid: number;
  host: string;
}

/**
 * Takes the lock file at `path`, so two runs never write `target` at once; returns its release. A lock
 * left by a killed run (its process is gone) is taken over; a live one makes this run fail at once
 * with the holder's pid. `writer` names what takes such a lock, as messages say it ("shopfront build").
 */
export function acquireLock(path: string, writer: string, target: string): () => void {
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
      throw new FailureError(
        `another ${writer} (pid ${holder.pid} on ${holder.host}) is writing ${target}; run again when it has finished`,
      );
    }
    // Stale: move it aside under a name only this process uses, then check that what moved is the
    // lock that was judged stale and not a fresh one another run took meanwhile.
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
      throw new FailureError(
        `another ${writer} (pid ${moved.pid}) started writing ${target} at the same time; run again when it has finished`,
      );
    }
    rmSync(aside, { force: true });
  }
}

function readLock(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    return typeof holder.pid === "number" && typeof holder.host === "string"
      ? { pid: holder.pid, host: holder.host }
      : undefined;
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
