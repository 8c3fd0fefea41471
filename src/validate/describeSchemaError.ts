// Turns ajv's errors into problems a maintainer can act on: one code per kind, a JSON pointer to
// the value, and a message that says what is expected (and, where it helps, what was found).
import { COMPUTED_FIELDS } from "../catalogue/fields.js";
import { NAME_RULE, RESERVED_NAME_RULE } from "../catalogue/names.js";
import { finding, pointerToken, type Finding, type ProblemCode } from "../catalogue/problems.js";
import type { SchemaError } from "../catalogue/schemas.js";

const CODES: Record<string, ProblemCode> = {
  type: "WRONG_TYPE",
  required: "MISSING_FIELD",
  additionalProperties: "UNKNOWN_FIELD",
  enum: "NOT_ALLOWED",
  const: "NOT_ALLOWED",
  minimum: "OUT_OF_RANGE",
  maximum: "OUT_OF_RANGE",
  minLength: "BAD_LENGTH",
  maxLength: "BAD_LENGTH",
  minItems: "BAD_LENGTH",
  maxItems: "BAD_LENGTH",
  uniqueItems: "REPEATED_VALUE",
  contains: "REPEATED_VALUE",
  pattern: "BAD_FORMAT",
};

/**
 * Messages for the patterns of the schemas, by the pattern's place in its schema file. A test
 * checks that every pattern in schemas/ has one.
 */
export const PATTERN_MESSAGES: Record<string, string> = {
  "/$defs/name/pattern": NAME_RULE,
  "/$defs/line/pattern": "must be one line without control characters",
  "/$defs/text/pattern": "must not contain control characters other than tab and line breaks",
  "/properties/controllers/pattern": "must only hold controller letters: w (Wii Remote, up to 4), n, c, g, k, z, s",
  "/properties/baseUrl/pattern":
    "must be an origin such as http://hbb1.example.org (http or https, a host name, a port at most; no path)",
  "/$defs/url/pattern": "must be an absolute http or https URL",
  "/$defs/asset/properties/hash/pattern": "must be an MD5 as 32 lowercase hex digits",
  "/$defs/asset/properties/sha256/pattern": "must be a SHA-256 as 64 lowercase hex digits",
  "/$defs/hostname/pattern": "must be a DNS host name such as hbb1.example.org",
  "/properties/counted/items/properties/sha256/pattern": "must be a SHA-256 as 64 lowercase hex digits",
  "/properties/counted/items/properties/countedAt/pattern": "must be an RFC 3339 UTC time such as 2026-11-23T21:00:00Z",
  "/properties/mirrors/items/pattern": "must be a base URL such as https://mirror.example.org/store/ (http or https)",
  "/$defs/oneLine/pattern": "must be one line (the Open Shop Channel's schema refuses a line break)",
};

const MAX_INT32 = 2147483647;
const TIMESTAMP = "/$defs/timestamp/";

/**
 * `written` holds, by pointer, numbers whose text the parsed value lost (`1.0` parses as 1), so a
 * message quotes the value as the file has it.
 */
export function describeSchemaError(error: SchemaError, written?: ReadonlyMap<string, string>): Finding {
  const path = error.schemaPath.slice(error.schemaPath.indexOf("#") + 1);
  const asWritten = typeof error.data === "number" ? written?.get(error.instancePath) : undefined;
  const found = asWritten ?? describeValue(error.data);
  switch (error.keyword) {
    case "required": {
      const field = (error.params as { missingProperty: string }).missingProperty;
      return finding("MISSING_FIELD", `${error.instancePath}/${pointerToken(field)}`, "is required");
    }
    case "additionalProperties": {
      const field = (error.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return finding(
        "UNKNOWN_FIELD",
        `${error.instancePath}/${pointerToken(field)}`,
        unknownFieldMessage(field, known),
      );
    }
    case "not":
      if (path === "/$defs/name/not") {
        return finding("RESERVED_NAME", error.instancePath, RESERVED_NAME_RULE);
      }
      break;
    case "pattern": {
      const message = PATTERN_MESSAGES[path];
      if (message)
        return finding(
          path === "/$defs/name/pattern" ? "INVALID_NAME" : "BAD_FORMAT",
          error.instancePath,
          `${message} (is ${found})`,
        );
      break;
    }
    case "enum": {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      const close = typeof error.data === "string" ? closestValues(error.data, allowed) : [];
      const hint = close.length > 0 ? `; did you mean ${close.map((v) => JSON.stringify(v)).join(" or ")}?` : "";
      return finding(
        "NOT_ALLOWED",
        error.instancePath,
        `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")} (is ${found})${hint}`,
      );
    }
    case "uniqueItems": {
      // ajv names the two equal items' indices: point at the later one, the repeat.
      const { i, j } = error.params as { i: number; j: number };
      const [first, repeat] = [Math.min(i, j), Math.max(i, j)];
      return finding(
        "REPEATED_VALUE",
        `${error.instancePath}/${repeat}`,
        `repeats ${describeValue((error.data as unknown[])[repeat])} (already at ${error.instancePath}/${first}): each value at most once`,
      );
    }
    case "contains": {
      // A value allowed a limited number of times (`maxContains`): point at the first one too many.
      const { maxContains } = error.params as { maxContains?: number };
      const wanted = (error.schema as { const?: unknown } | undefined)?.const;
      if (maxContains !== undefined && wanted !== undefined && Array.isArray(error.data)) {
        const at = error.data.map((v, i) => (v === wanted ? i : -1)).filter((i) => i >= 0)[maxContains];
        if (at !== undefined)
          return finding(
            "REPEATED_VALUE",
            `${error.instancePath}/${at}`,
            `repeats ${describeValue(wanted)}: it may be listed ${maxContains === 1 ? "once" : `at most ${maxContains} times`}`,
          );
      }
      break;
    }
    case "maxItems":
      return finding(
        "BAD_LENGTH",
        error.instancePath,
        `must have at most ${(error.params as { limit: number }).limit} items (has ${(error.data as unknown[]).length})`,
      );
    case "minLength":
    case "maxLength":
    case "minItems": {
      const limit = (error.params as { limit: number }).limit;
      const unit = error.keyword === "minItems" ? "item" : "character";
      const message =
        error.keyword === "maxLength"
          ? `must be at most ${limit} characters (is ${String(error.data).length})`
          : limit === 1
            ? "must not be empty"
            : `must have at least ${limit} ${unit}s`;
      return finding("BAD_LENGTH", error.instancePath, message);
    }
    case "maximum": {
      const limit = (error.params as { limit: number }).limit;
      const value = error.data as number;
      if (path === `${TIMESTAMP}maximum` && value / 1000 <= MAX_INT32)
        return finding(
          "OUT_OF_RANGE",
          error.instancePath,
          `must be at most ${limit} (is ${found}): Unix time is in seconds, and this looks like milliseconds: ${Math.floor(value / 1000)}`,
        );
      const hint = limit === MAX_INT32 ? ": clients read it as a 32-bit int" : "";
      return finding("OUT_OF_RANGE", error.instancePath, `must be at most ${limit}${hint} (is ${found})`);
    }
    case "minimum":
      return finding(
        "OUT_OF_RANGE",
        error.instancePath,
        `must be at least ${(error.params as { limit: number }).limit} (is ${found})`,
      );
    case "type": {
      const type = (error.params as { type: string }).type;
      return finding(
        "WRONG_TYPE",
        error.instancePath,
        `must be ${type} (is ${found})${typeHint(error.data, path, type, found, error.parentSchema)}`,
      );
    }
  }
  return finding(CODES[error.keyword] ?? "BAD_FORMAT", error.instancePath, error.message ?? "is not valid");
}

function unknownFieldMessage(field: string, known: readonly string[]): string {
  if (field in COMPUTED_FIELDS)
    return "is computed by the build from catalogue/stats/<host>.json and must not be in a manifest";
  const close = known.filter((k) => editDistance(k, field) <= 2);
  const hint =
    close.length > 0
      ? `; did you mean ${close.map((k) => JSON.stringify(k)).join(" or ")}?`
      : `; the fields are ${known.join(", ")}`;
  return `is not a known field${hint}`;
}

/**
 * What to write instead, where the value is a common slip: a version as a number, a date as text.
 * A number is said to be quoted only where the quoted number passes the field's other rules (a
 * `controllers` of 1 would fail again as "1"); else the hint is the rule it must follow.
 */
function typeHint(data: unknown, path: string, type: string, found: string, schema: unknown): string {
  // `found` is a number as the file has it: `"version": 1.0` is quoted as "1.0", not "1".
  if (type === "string" && typeof data === "number") {
    const rules = (schema ?? {}) as { pattern?: string; enum?: unknown[]; maxLength?: number };
    const fits =
      (rules.pattern === undefined || new RegExp(rules.pattern, "u").test(found)) &&
      (rules.enum === undefined || rules.enum.includes(found)) &&
      (rules.maxLength === undefined || found.length <= rules.maxLength);
    if (fits) return `; write it as a string: "${found}"`;
    const rule = PATTERN_MESSAGES[path.replace(/type$/, "pattern")];
    return rule !== undefined ? `, a string that ${rule.replace(/^must /, "must ")}` : "";
  }
  if (path === `${TIMESTAMP}type` && typeof data === "string") {
    const date = unixSeconds(data);
    if (date !== undefined)
      return `; ${data.trim()} is ${date.seconds} in Unix seconds${date.zoneless ? ", read as UTC" : ""}`;
  }
  return "";
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number") return String(value);
  const text = JSON.stringify(value);
  return text.length > 60 ? `${typeof value} ${text.slice(0, 57)}...` : `${typeof value} ${text}`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Unix seconds of a date written as text: an ISO date (midnight UTC) or date and time, with a zone
 * or without one (then read as UTC, and said so); undefined for anything else.
 */
function unixSeconds(text: string): { seconds: number; zoneless: boolean } | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:\d{2})?)?$/i.exec(
    text.trim(),
  );
  if (!match) return undefined;
  const [, date, time, zone] = match;
  const ms = Date.parse(time === undefined ? `${date}T00:00:00Z` : `${date}T${time}${zone ?? "Z"}`);
  return Number.isNaN(ms) ? undefined : { seconds: Math.floor(ms / 1000), zoneless: time !== undefined && !zone };
}

/**
 * The allowed values a mistyped one most likely meant: the nearest by edit distance, ignoring case,
 * when it is 1 (2 for values of five characters or more); or the one value sharing a first five
 * characters with it ("utilities" for "utility"). None when nothing is that close.
 */
function closestValues(value: string, allowed: readonly unknown[]): string[] {
  const wanted = value.trim().toLowerCase();
  const strings = allowed.filter((v): v is string => typeof v === "string");
  const distances = strings.map((v) => editDistance(v.toLowerCase(), wanted));
  const best = Math.min(...distances);
  if (best <= (wanted.length >= 5 ? 2 : 1)) return strings.filter((_, i) => distances[i] === best);
  const sharing = strings.filter((v) => wanted.length >= 5 && v.toLowerCase().startsWith(wanted.slice(0, 5)));
  return sharing.length === 1 ? sharing : [];
}
