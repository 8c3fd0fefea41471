// Placeholder text that `init` and `new` wrote and nobody replaced, and a release date that `new
// --from` or `import apps` guessed: valid by the schema, so it would be published as if it were the
// package's (or the repository's) own. A warning names the field and what to write; `--strict`
// makes it an error.
import {
  HOST_PLACEHOLDER_HINTS,
  HOST_PLACEHOLDERS,
  MANIFEST_PLACEHOLDER_HINTS,
  MANIFEST_PLACEHOLDERS,
} from "../catalogue/manifestTemplate.js";
import { GUESSED_DATE_KEY, hasGuessedDate } from "../catalogue/guessedDate.js";
import { finding, type Finding } from "../catalogue/problems.js";

/** The placeholders a manifest (as parsed, valid or not) still holds, one warning per field. */
export function manifestPlaceholderFindings(manifest: unknown): Finding[] {
  if (!isObject(manifest)) return [];
  const findings: Finding[] = [];
  for (const [field, text] of Object.entries(MANIFEST_PLACEHOLDERS)) {
    const hint = MANIFEST_PLACEHOLDER_HINTS[field as keyof typeof MANIFEST_PLACEHOLDERS];
    const found = placeholderFinding(`/${field}`, manifest[field], [text], hint, "init or new");
    if (found) findings.push(found);
  }
  return findings;
}

/** A release date still as `new --from` or `import apps` guessed it: a warning until a person sets it. */
export function guessedDateFindings(manifest: unknown): Finding[] {
  if (!hasGuessedDate(manifest)) return [];
  const date = (manifest as { release_date: number }).release_date;
  const written = new Date(date * 1000).toISOString().replace(/\.000Z$/, "Z");
  return [
    finding(
      "RELEASE_DATE_GUESSED",
      "/release_date",
      `is guessed (${written}: the app's meta.xml gives no date): write the app's real release date in Unix seconds (and as <release_date> in its meta.xml); /${GUESSED_DATE_KEY} says which date was guessed, and may go then`,
      "warning",
    ),
  ];
}

/**
 * The description an import gives a host it declares knowing nothing but its id (its name is the
 * id, its host `<id>.example.org`): a placeholder like init's.
 */
export const IMPORTED_HOST_DESCRIPTION = "Imported by shopfront; edit the name, host and description in hosts.json.";

/** The placeholders the hosts of hosts.json (as parsed, valid or not) still hold in their names and descriptions. */
export function hostPlaceholderFindings(hostsFile: unknown): Finding[] {
  if (!isObject(hostsFile) || !Array.isArray(hostsFile.hosts)) return [];
  const texts = Object.values(HOST_PLACEHOLDERS);
  const findings: Finding[] = [];
  hostsFile.hosts.forEach((host: unknown, index) => {
    if (!isObject(host)) return;
    for (const [field, hint] of Object.entries(HOST_PLACEHOLDER_HINTS)) {
      const found = placeholderFinding(`/hosts/${index}/${field}`, host[field], texts, hint, "init");
      if (found) findings.push(found);
    }
    const imported = placeholderFinding(
      `/hosts/${index}/description`,
      host.description,
      [IMPORTED_HOST_DESCRIPTION],
      `${HOST_PLACEHOLDER_HINTS.description}, and the repository's own name and domain in /hosts/${index}/name and /hosts/${index}/host`,
      "an import",
    );
    if (imported) findings.push(imported);
  });
  return findings;
}

function placeholderFinding(
  pointer: string,
  value: unknown,
  texts: readonly string[],
  hint: string,
  writer: string,
): Finding | undefined {
  if (typeof value !== "string") return undefined;
  // A placeholder kept beside real words is as plain to a client as one left alone.
  const text = texts.find((t) => value.includes(t));
  if (text === undefined) return undefined;
  const all = value === text ? "is" : "holds";
  return finding(
    "PLACEHOLDER_TEXT",
    pointer,
    `${all} the placeholder ${JSON.stringify(text)} written by ${writer}: write ${hint}`,
    "warning",
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
