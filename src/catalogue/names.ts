// The one name rule. Package names and host ids become file paths and go into generated server
// configs, so every place that takes a name checks it here. The rule itself lives in
// schemas/manifest.schema.json ($defs/name); this module only reads it.
import { readSchema } from "./schemas.js";

interface NameDefinition {
  pattern: string;
  not: { pattern: string };
}

const definition = (readSchema("manifest") as { $defs: { name: NameDefinition } }).$defs.name;

/**
 * The syntactic part of the rule as one anchored regular expression. It has no look-around, so it
 * is used verbatim by PCRE (nginx, Apache, lighttpd), RE2 (Caddy) and JavaScript (workers, CDN functions).
 * It alone keeps a name from ever being `.`, `..`, empty, too long, or containing `/`, `\` or `%`.
 */
export const NAME_PATTERN: string = definition.pattern;

/** NAME_PATTERN without its anchors, for embedding in a larger expression. */
export const NAME_PATTERN_BODY: string = NAME_PATTERN.slice(1, -1);

const nameRegExp = new RegExp(NAME_PATTERN);
const reservedRegExp = new RegExp(definition.not.pattern);

/** True when `value` passes the whole rule: the pattern, and not a Windows device name. */
export function isValidName(value: unknown): value is string {
  return typeof value === "string" && nameRegExp.test(value) && !reservedRegExp.test(value);
}

export const NAME_RULE =
  "must be 1 to 64 ASCII letters, digits, '_', '-' or '.', start with a letter, digit or '_', and not end with '.'";
export const RESERVED_NAME_RULE =
  "is a Windows device name (con, prn, aux, nul, com0-9, lpt0-9, with any extension): it cannot be a file on Windows";

/** Which part of the rule `value` breaks, if any. */
export function nameProblem(value: string): "INVALID_NAME" | "RESERVED_NAME" | undefined {
  if (!nameRegExp.test(value)) return "INVALID_NAME";
  return reservedRegExp.test(value) ? "RESERVED_NAME" : undefined;
}

/** A name that reached a path or config without passing the rule is a bug, never input. */
export function assertValidName(value: string, what: string): string {
  if (!isValidName(value)) throw new Error(`internal: ${what} ${JSON.stringify(value)} does not match the name rule`);
  return value;
}

/** Key under which names that collide on case-insensitive file systems and caches compare equal. */
export function foldCase(name: string): string {
  return name.toLowerCase();
}

/**
 * A name that passes the rule, proposed for `text` that does not (a folder name such as
 * `DOP-Mii WiiBrew Edition` or `"radiow`): accents dropped, lowercase, quotes stripped, every other run
 * of characters the rule refuses made one `-`, cut to 64. Undefined when nothing usable is left.
 */
export function proposeName(text: string): string | undefined {
  const proposed = text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/["'`\u2018\u2019\u201c\u201d]/g, "")
    .replace(/[^a-z0-9_.-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[.-]+/, "")
    .slice(0, 64)
    .replace(/[.-]+$/, "");
  if (proposed === "") return undefined;
  const name = reservedRegExp.test(proposed) ? `${proposed.slice(0, 60)}-app` : proposed;
  return isValidName(name) ? name : undefined;
}
