// The revision of the index a build writes, in one place: the build's time in milliseconds, or one
// more than the live index's when that is not smaller (two builds in a millisecond, a clock set
// back). A build that finds no live index (a CI job whose cache missed, a build into an empty folder)
// still gets a larger revision than any before it, without learning it from anywhere, even when the
// one before it ran in the same second (whole seconds, as before, gave both the same revision); so a
// deployment never goes back, and a replayed old entry is told from the current one by its revision
// (F-Droid's index versions by timestamp the same way). An index of whole seconds (about 1.8e9) is
// replaced by one of milliseconds (about 1.8e12): larger, as it must be.

/** The revision of a build at `builtMs` that replaces an index at `liveRevision` (undefined: none). */
export function nextRevision(builtMs: number, liveRevision: number | undefined): number {
  return Math.max(Math.floor(builtMs), (liveRevision ?? 0) + 1);
}

/** When an entry built at `builtMs` expires, with a lifetime of `days` (ISO 8601, UTC). */
export function expiryOf(builtMs: number, days: number): string {
  return new Date(builtMs + days * 24 * 3600 * 1000).toISOString();
}
