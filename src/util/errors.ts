// The few errors the core throws on purpose. Anything else that reaches the CLI is a bug (exit 3),
// except the operating system's own errors (a full disk, a missing permission), which are exit 1.

/** The command was called wrongly: a bad option, a catalogue or output folder that cannot be used. Exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The command could not do its job for a reason outside the catalogue, such as a concurrent build. Exit 1. */
export class FailureError extends Error {
  override name = "FailureError";
}

/** An error raised by the operating system (it has an errno code such as ENOSPC and a syscall). */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).code === "string" &&
    typeof (error as NodeJS.ErrnoException).syscall === "string"
  );
}
