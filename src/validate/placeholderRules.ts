// Placeholder text that `init` and `new` wrote and nobody replaced: valid by the schema, so it would
// be published as if it were the package's (or the repository's) own words. A warning names the
// field and what to write; `--strict` makes it an error.
import {
  HOST_PLACEHOLDER_HINTS,
  HOST_PLACEHOLDERS,
  MANIFEST_PLACEHOLDER_HINTS,
  MANIFEST_PLACEHOLDERS,
} from "../catalogue/manifestTemplate.js";
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
