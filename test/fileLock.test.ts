// The lock of a build or a count, judged from what its file records: a holder on this machine is
// asked (is its pid still the same process?), one elsewhere counts while it refreshes the lock. Lock
// files are written by hand as the holders would have left them.
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock, LOCK_STALE_MS } from "../src/util/fileLock.js";
import { FailureError } from "../src/util/errors.js";
import { tempDir } from "./helpers.js";

const WRITER = "shopfront build";
const TARGET = "dist";

function lockFile(holder: object, ageMs = 0): string {
  const path = join(tempDir(), "lock");
  writeFileSync(path, JSON.stringify(holder));
  const when = new Date(Date.now() - ageMs);
  utimesSync(path, when, when);
  return path;
}

/** Takes the lock and releases it at once; the lock file must be gone after. */
function takeOver(path: string): void {
  acquireLock(path, WRITER, TARGET)();
  expect(existsSync(path)).toBe(false);
}

const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
const myStart = readFileSync(`/proc/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19]!;

describe("a lock taken on another machine (a container since replaced, another runner)", () => {
  it("is held while it is refreshed, and the error names the lock file and how to remove it", () => {
    const path = lockFile({ pid: 1, host: "old-container" }, 60_000);
    const before = readFileSync(path, "utf8");
    expect(() => acquireLock(path, WRITER, TARGET)).toThrow(
      new FailureError(
        `another shopfront build (pid 1 on old-container) is writing dist; run again when it has finished. ` +
          `It was taken on old-container, where shopfront cannot see whether it still runs: its lock file ${path}, ` +
          `last refreshed 60 s ago, is taken over once it has not been refreshed for 10 minutes. ` +
          `If nothing runs there any more (a container that was replaced), remove it now: rm ${path}`,
      ),
    );
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("quotes the lock file's path for the shell", () => {
    const dir = join(tempDir(), "it's here");
    mkdirSync(dir);
    const path = join(dir, "lock");
    writeFileSync(path, JSON.stringify({ pid: 1, host: "elsewhere" }));
    expect(() => acquireLock(path, WRITER, TARGET)).toThrow(`remove it now: rm '${path.replace("'", "'\\''")}'`);
  });

  it("is taken over once it has not been refreshed for the stale limit", () => {
    takeOver(lockFile({ pid: 1, host: "old-container" }, LOCK_STALE_MS + 60_000));
  });

  it("is refreshed by its holder while held, and removed on release", async () => {
    const path = join(tempDir(), "lock");
    const release = acquireLock(path, WRITER, TARGET, 20);
    const old = new Date(Date.now() - LOCK_STALE_MS * 2);
    utimesSync(path, old, old);
    const until = Date.now() + 10_000;
    while (Date.now() - statSync(path).mtimeMs > 5_000 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.now() - statSync(path).mtimeMs).toBeLessThan(5_000);
    release();
    expect(existsSync(path)).toBe(false);
  });
});

describe("a lock taken on this machine", () => {
  it("is held while its process runs, and the error names the lock file", () => {
    const path = join(tempDir(), "lock");
    const release = acquireLock(path, WRITER, TARGET);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      pid: process.pid,
      host: hostname(),
      boot: bootId,
      start: myStart,
    });
    expect(() => acquireLock(path, WRITER, TARGET)).toThrow(
      new FailureError(
        `another shopfront build (pid ${process.pid} on ${hostname()}) is writing dist; run again when it has finished (its lock file is ${path})`,
      ),
    );
    release();
  });

  it("is taken over when its pid now belongs to another process (a restarted container numbers from 1 again)", () => {
    // This process is alive, but started at another time than the one that took the lock.
    takeOver(lockFile({ pid: process.pid, host: hostname(), boot: bootId, start: String(Number(myStart) - 1) }));
  });

  it("taken in an earlier boot, is judged like one from elsewhere: held while refreshed, then taken over", () => {
    const earlier = { pid: process.pid, host: hostname(), boot: "00000000-0000-0000-0000-000000000000" };
    const fresh = lockFile(earlier, 1_000);
    expect(() => acquireLock(fresh, WRITER, TARGET)).toThrow(`It was taken in an earlier boot of ${hostname()}`);
    takeOver(lockFile(earlier, LOCK_STALE_MS + 60_000));
  });
});
