// A release date for a package whose meta.xml gives none (or none that can be read). Never silently
// the current time: the newest file's time inside the package, kept older than every dated package
// of its host, so that a guess never leads the browse site's "Newest releases" (which sorts by
// release_date). The caller warns of it, naming the file and what to set.

/** The date to write, and why, for the warning. */
export function guessReleaseDate(
  newestFile: number | undefined,
  hostDates: readonly number[],
  now: number,
): { date: number; basis: string } {
  const fromFiles = newestFile ?? now;
  // reduce, not Math.min(...): a host of a million packages would overflow the call stack.
  const oldest = hostDates.reduce<number | undefined>((min, d) => (min === undefined || d < min ? d : min), undefined);
  if (oldest !== undefined && fromFiles >= oldest)
    return { date: Math.max(0, oldest - 1), basis: "just older than the host's oldest dated package" };
  return { date: Math.max(0, fromFiles), basis: newestFile === undefined ? "now" : "the newest file's time" };
}

/** The warning for a guessed date: the file to fix, what was written and what to set. */
export function guessedDateMessage(
  what: "missing" | "unreadable",
  metaFile: string,
  manifestFile: string,
  guess: { date: number; basis: string },
): string {
  const written = new Date(guess.date * 1000).toISOString().replace(/\.000Z$/, "Z");
  return `${metaFile} ${what === "missing" ? "has no <release_date>" : "has a <release_date> that cannot be read"}: release_date is set to ${written} (${guess.basis}, so that it never leads "Newest releases"); set <release_date> in meta.xml (yyyyMMddHHmmss) and release_date in ${manifestFile}, which validate warns of until then`;
}
