// Progress on a terminal: a bar for long builds, a counter for checks and deploys. Both draw only
// when stderr is a terminal, so logs and pipes stay clean.
import { formatBytes } from "../util/formatBytes.js";

/** Whether stderr is a terminal that can redraw a line. */
function canDraw(): boolean {
  return process.stderr.isTTY === true && process.env.TERM !== "dumb";
}

/** A redraw of one line, at most every 100 ms, always when done reaches total (then ending the line). */
function throttled(): (done: number, total: number, text: string) => void {
  let last = 0;
  return (done, total, text) => {
    const now = performance.now();
    if (done < total && now - last < 100) return;
    last = now;
    process.stderr.write(`\r${text}${done === total ? "\n" : ""}`);
  };
}

/** `[####      ]`, 30 wide. */
function bar(done: number, total: number): string {
  const width = 30;
  const filled = Math.round((done / total) * width);
  return `[${"#".repeat(filled)}${" ".repeat(width - filled)}]`;
}

/** A progress bar on stderr for builds with many files; undefined when stderr is no terminal. */
export function progressBar(): ((phase: string, done: number, total: number) => void) | undefined {
  if (!canDraw()) return undefined;
  const draw = throttled();
  return (phase, done, total) => {
    if (total < 2000) return;
    draw(done, total, `${phase.padEnd(7)} ${bar(done, total)} ${done}/${total}`);
  };
}

/** A progress line on stderr (`checked 12/40`); undefined when stderr is no terminal. */
export function progressLine(label: string): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  const draw = throttled();
  return (done, total) => draw(done, total, `${label} ${done}/${total}`);
}

/** A bar on stderr for an import's archives (`archives [####      ] 12/40  3.1 MB`); undefined when stderr is no terminal. */
export function downloadBar(): ((done: number, total: number, bytes: number) => void) | undefined {
  if (!canDraw()) return undefined;
  const draw = throttled();
  return (done, total, bytes) => {
    if (total === 0) return;
    draw(done, total, `archives ${bar(done, total)} ${done}/${total}  ${formatBytes(bytes)}\x1b[K`);
  };
}

/** A bar on stderr for a count of anything (`files [####      ] 12/40`); undefined when stderr is no terminal. */
export function countBar(label: string): ((done: number, total: number) => void) | undefined {
  if (!canDraw()) return undefined;
  const draw = throttled();
  return (done, total) => {
    if (total === 0) return;
    draw(done, total, `${label} ${bar(done, total)} ${done}/${total}\x1b[K`);
  };
}
