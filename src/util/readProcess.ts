// What Linux tells of a process by its pid, in /proc/PID/stat: enough to tell one process from
// another that reuses its pid (its start time), and whether it has exited (a zombie).
import { readFileSync } from "node:fs";

export interface ProcessInfo {
  /** The process's name, as its title sets it (cut to 15 bytes by the kernel). */
  name: string;
  state: string;
  ppid: number;
  /** When it started, in clock ticks since boot. */
  start: string;
}

/** What Linux's /proc/PID/stat says of a process; undefined when it is gone or there is no /proc. */
export function readProcess(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    // No such process, or not ours to read: the caller treats it as not running.
    return undefined;
  }
  // The name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const open = stat.indexOf("(");
  const close = stat.lastIndexOf(")");
  const fields = stat.slice(close + 2).split(" ");
  return { name: stat.slice(open + 1, close), state: fields[0]!, ppid: Number(fields[1]), start: fields[19]! };
}
