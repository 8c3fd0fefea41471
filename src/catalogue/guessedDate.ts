// A release date nobody knew: `import apps` and `new --from` guess one from the app's files and say
// so in the manifest itself, `"$release_date_guessed": <the date guessed>`, beside `release_date`.
// Named like `$schema`, it is no field of the API and the build never publishes it. The date stays
// guessed while release_date still holds that value: `validate` warns of it (an error with
// --strict) until a person writes the real date, and the guess is kept below the host's known dates.

/** The manifest key that records a guessed release date. */
export const GUESSED_DATE_KEY = "$release_date_guessed";

/** True when the manifest (as parsed, valid or not) has a release date that is still the guess. */
export function hasGuessedDate(manifest: unknown): boolean {
  if (typeof manifest !== "object" || manifest === null) return false;
  const m = manifest as Record<string, unknown>;
  return typeof m[GUESSED_DATE_KEY] === "number" && m[GUESSED_DATE_KEY] === m.release_date;
}
