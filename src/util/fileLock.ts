// A lock file for a writer that must not run twice at once (a build over its output, a count over
// a stats file): taken with O_EXCL, holding who holds it, kept fresh while held, taken over when stale.
//
// When is a lock stale? On this machine (same host name, same boot) the holder's process can be
// asked: it is gone, or its pid now belongs to another process (a restarted container numbers its
// processes from 1 again, so only the pid's start time tells them apart). A holder on another
// machine, or on this host name before a reboot, cannot be asked; its lock counts as held while the
// holder keeps refreshing it, and is taken over once it has not been refreshed for LOCK_STALE_MS.
import {
  closeSync,
  futimesSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { FailureError } from "./errors.js";
import { readProcess } from "./readProcess.js";

/** How often a held lock's modification time is renewed. */
export const LOCK_REFRESH_MS = 30_000;
/**
 * How long a lock whose holder cannot be asked stays held without being refreshed. Far above the
 * refresh: a build blocks its event loop for seconds at most (a million packages build in a minute).
 */
export const LOCK_STALE_MS = 10 * 60_000;

interface LockHolder {
  pid: number;
  host: string;
  /** The kernel's boot id (Linux); a pid means nothing across a reboot. */
  boot?: string;
  /** When the process started, in clock ticks since boot (Linux); tells a reused pid from the holder. */
  start?: string;
}

/**
 * Takes the lock file at `path`, so two runs never write `target` at once; returns its release. A lock
 * left by a run that is gone is taken over; a live one makes this run fail at once, naming the
 * holder and the lock file. `writer` names what takes such a lock, as messages say it ("shopfront build").
 */
export function acquireLock(
  path: string,
  writer: string,
  target: string,
  refreshMs: number = LOCK_REFRESH_MS,
): () => void {
  const me = thisProcess();
  for (;;) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, JSON.stringify(me));
      const refresh = setInterval(() => {
        const now = new Date();
        futimesSync(fd, now, now);
      }, refreshMs);
      refresh.unref();
      return () => {
        clearInterval(refresh);
        closeSync(fd);
        rmSync(path, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const holder = readLock(path);
    const held = holder ? judgeHolder(holder, path) : undefined;
    if (holder && held) throw new FailureError(heldMessage(holder, held, path, writer, target));
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
    if (moved && !sameHolder(moved, holder) && judgeHolder(moved, aside)) {
      // Put the other build's lock back (link never replaces a lock taken meanwhile) and give way.
      try {
        linkSync(aside, path);
      } finally {
        rmSync(aside, { force: true });
      }
      throw new FailureError(
        `another ${writer} (pid ${moved.pid}) started writing ${target} at the same time; run again when it has finished (its lock file is ${path})`,
      );
    }
    rmSync(aside, { force: true });
  }
}

/** How a lock is known to be held: its process runs here, or it was refreshed `ageMs` ago elsewhere. */
type Held = { running: true } | { running: false; ageMs: number };

/** Whether the lock at `path` is held by `holder`, and how that is known; undefined when it is stale. */
function judgeHolder(holder: LockHolder, path: string): Held | undefined {
  const boot = bootId();
  if (holder.host === hostname() && (holder.boot === undefined || boot === undefined || holder.boot === boot)) {
    try {
      process.kill(holder.pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EPERM") return undefined;
    }
    const start = readProcess(holder.pid)?.start;
    if (holder.start !== undefined && start !== undefined && start !== holder.start) return undefined;
    return { running: true };
  }
  let ageMs: number;
  try {
    ageMs = Date.now() - statSync(path).mtimeMs;
  } catch {
    // Gone meanwhile: the next attempt finds the path free or taken.
    return { running: false, ageMs: 0 };
  }
  return ageMs > LOCK_STALE_MS ? undefined : { running: false, ageMs: Math.max(0, ageMs) };
}

function heldMessage(holder: LockHolder, held: Held, path: string, writer: string, target: string): string {
  const who = `another ${writer} (pid ${holder.pid} on ${holder.host}) is writing ${target}; run again when it has finished`;
  if (held.running) return `${who} (its lock file is ${path})`;
  const where = holder.host === hostname() ? `in an earlier boot of ${holder.host}` : `on ${holder.host}`;
  return (
    `${who}. It was taken ${where}, where shopfront cannot see whether it still runs: its lock file ` +
    `${path}, last refreshed ${formatAge(held.ageMs)} ago, is taken over once it has not been refreshed for ` +
    `${LOCK_STALE_MS / 60_000} minutes. If nothing runs there any more (a container that was replaced), ` +
    `remove it now: rm ${shellQuote(path)}`
  );
}

function sameHolder(a: LockHolder, b: LockHolder | undefined): boolean {
  return b !== undefined && a.pid === b.pid && a.host === b.host && a.boot === b.boot && a.start === b.start;
}

function thisProcess(): LockHolder {
  const boot = bootId();
  const start = readProcess(process.pid)?.start;
  return {
    pid: process.pid,
    host: hostname(),
    ...(boot !== undefined ? { boot } : {}),
    ...(start !== undefined ? { start } : {}),
  };
}

function readLock(path: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    if (typeof holder.pid !== "number" || typeof holder.host !== "string") return undefined;
    return {
      pid: holder.pid,
      host: holder.host,
      ...(typeof holder.boot === "string" ? { boot: holder.boot } : {}),
      ...(typeof holder.start === "string" ? { start: holder.start } : {}),
    };
  } catch {
    // Unreadable or half-written by a build killed while taking it: treat as stale.
    return undefined;
  }
}

/** The id of this boot of the kernel, where the system tells it (Linux). */
function bootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined;
  } catch {
    // No boot id (not Linux, or /proc hidden): a lock from another boot is then judged by its process alone.
    return undefined;
  }
}

function formatAge(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}
