// When a long-running command (a server) should stop: Ctrl-C, a polite kill, or the npm that ran it gone.
//
// npm matters because `npx shopfront serve` is `npm exec`, which runs the bin through `sh -c`: the
// server is npm's grandchild. npm forwards SIGINT and SIGTERM to its child, the shell, which dies of
// SIGTERM without passing it on, and a SIGKILL of npm reaches no one: either way the server went on
// serving, adopted by init (the same holds for `npm run serve`). So a command that npm started stops
// when that npm process is gone. Only npm's: a server started by a shell that then exits (`nohup
// shopfront serve &`) is meant to outlive it. Ctrl-C in a terminal reaches the whole process group,
// the server included, and needs none of this.
import { readProcess } from "./readProcess.js";

/** Why the command is asked to stop. */
export type StopReason = "SIGINT" | "SIGTERM" | "SIGHUP" | "npm exited";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** How often the npm process that started this one is checked. */
export const NPM_POLL_MS = 500;

/**
 * Calls `stop` once, at the first of: SIGINT, SIGTERM, SIGHUP, or the npm process that started this
 * one (`npx`, `npm exec`, `npm run`) exiting. From then on it listens no more, so a second Ctrl-C
 * during a slow shutdown ends the process at once. Returns a function that stops listening. Nothing
 * it sets up keeps the process alive.
 */
export function onStopRequest(stop: (reason: StopReason) => void, pollMs: number = NPM_POLL_MS): () => void {
  const listeners = SIGNALS.map((signal) => {
    const listener = () => fire(signal);
    process.once(signal, listener);
    return [signal, listener] as const;
  });
  const npmGone = npmWatch();
  const poll = npmGone
    ? setInterval(() => {
        if (npmGone()) fire("npm exited");
      }, pollMs).unref()
    : undefined;
  let done = false;
  const dispose = () => {
    done = true;
    clearInterval(poll);
    for (const [signal, listener] of listeners) process.removeListener(signal, listener);
  };
  const fire = (reason: StopReason) => {
    if (done) return;
    dispose();
    stop(reason);
  };
  return dispose;
}

/** A check that the npm process that started this one is gone; undefined when npm did not start it. */
function npmWatch(): (() => boolean) | undefined {
  if (process.env["npm_lifecycle_event"] === undefined) return undefined;
  if (readProcess(process.pid) === undefined) {
    // No /proc (macOS): the parent is the best guess; a process whose parent exits gets a new one.
    const parent = process.ppid;
    return () => process.ppid !== parent;
  }
  // npm names its process after the command ("npm exec shopfront serve"); the shell sits between.
  let pid = process.ppid;
  for (let depth = 0; depth < 3 && pid > 1; depth++) {
    const info = readProcess(pid);
    if (info === undefined) return undefined;
    if (info.name === "npm" || info.name.startsWith("npm ")) {
      const npm = { pid, start: info.start };
      return () => {
        const now = readProcess(npm.pid);
        // A zombie has exited; another start time is another process under a reused pid.
        return now === undefined || now.state === "Z" || now.start !== npm.start;
      };
    }
    pid = info.ppid;
  }
  return undefined;
}
