// Progress on a terminal: a bar for long builds, a counter for checks and deploys. Both draw only
// when stderr is a terminal, so logs and pipes stay clean.
import { formatBytes } from "../util/formatBytes.js";

/** A progress bar on stderr for builds with many files; undefined when stderr is no terminal. */
export function progressBar(): ((phase: string, done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY || process.env.TERM === "dumb") return undefined;
  let last = 0;
  return (phase, done, total) => {
    if (total < 2000) return;
    const now = performance.now();
    if (done < total && now - last < 100) return;
    last = now;
    const width = 30;
    const filled = Math.round((done / total) * width);
    process.stderr.write(
      `\r${phase.padEnd(7)} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}${done === total ? "\n" : ""}`,
    );
  };
}

/** A progress line on stderr (`checked 12/40`); undefined when stderr is no terminal. */
export function progressLine(label: string): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return (done, total) => {
    const now = performance.now();
    if (done < total && now - last < 100) return;
    last = now;
    process.stderr.write(`\r${label} ${done}/${total}${done === total ? "\n" : ""}`);
  };
}

/** A bar on stderr for an import's archives (`archives [####      ] 12/40  3.1 MB`); undefined when stderr is no terminal. */
export function downloadBar(): ((done: number, total: number, bytes: number) => void) | undefined {
  if (!process.stderr.isTTY || process.env.TERM === "dumb") return undefined;
  let last = 0;
  return (done, total, bytes) => {
    if (total === 0) return;
    const now = performance.now();
    if (done < total && now - last < 100) return;
    last = now;
    const width = 30;
    const filled = Math.round((done / total) * width);
    process.stderr.write(
      `\rarchives [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}  ${formatBytes(bytes)}\x1b[K${done === total ? "\n" : ""}`,
    );
  };
}
