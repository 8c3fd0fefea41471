// Exit codes, and which errors are the user's to fix (printed as one line) rather than bugs.
import { CommanderError } from "commander";
import { FailureError, isSystemError, UsageError } from "../util/errors.js";
import { VERSION } from "../util/version.js";

export const EXIT = { ok: 0, invalid: 1, usage: 2, internal: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An action that returns its exit code, as commander's action. */
export function exits<A extends unknown[]>(run: (...args: A) => Promise<ExitCode>): (...args: A) => Promise<void> {
  return async (...args) => {
    process.exitCode = await run(...args);
  };
}

/** An error shopfront expects (a usage error, a failure outside the catalogue, the system's), with its exit code. */
export function expectedExit(error: unknown): { code: ExitCode; message: string } | undefined {
  if (error instanceof UsageError) return { code: EXIT.usage, message: error.message };
  if (error instanceof FailureError || isSystemError(error)) {
    // A file system out of inodes says ENOSPC too, with room to spare on `df -h`.
    const hint =
      isSystemError(error) && error.code === "ENOSPC"
        ? " (out of space or of inodes: see df -h and df -i); the previous output is unchanged"
        : "";
    return { code: EXIT.invalid, message: `${error.message}${hint}` };
  }
  return undefined;
}

/** Prints what the error says (commander has printed its own) and gives the exit code. */
export function exitCodeFor(error: unknown): ExitCode {
  // Help and --version are not errors.
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  const expected = expectedExit(error);
  if (expected) {
    process.stderr.write(`error: ${expected.message}\n`);
    return expected.code;
  }
  process.stderr.write(
    `internal error: this is a bug in shopfront ${VERSION}; please report it with this output.\n${error instanceof Error ? error.stack : String(error)}\n`,
  );
  return EXIT.internal;
}
