// The catalogue's rules for a file, as pure functions from its bytes to problems: hosts.json, a
// manifest, a stats file. The rules for the folders and the files they hold are layoutRules.ts.
import { FILES_FIELDS, type HostsFile, type Manifest } from "../catalogue/fields.js";
import { foldCase, isValidName } from "../catalogue/names.js";
import { numbersAsWritten, parseJson } from "./parseJson.js";
import { finding, inFile, pointerToken, type Finding, type Problem } from "../catalogue/problems.js";
import { describeSchemaError } from "./describeSchemaError.js";
import type { SourceBytes } from "../read/readCatalogue.js";
import { RESERVED_HOST_IDS } from "../routes/routeTable.js";
import type { Validators } from "../catalogue/schemas.js";
import type { ValidateFunction } from "ajv";
import { controllersOfPeripherals, peripheralsAgree } from "../catalogue/todayFields.js";
import { STATS_FOLDER, statsFileOf, type StatsFile } from "../catalogue/statsFile.js";
import { hasGuessedDate } from "../catalogue/guessedDate.js";
import { guessedDateFindings, hostPlaceholderFindings, manifestPlaceholderFindings } from "./placeholderRules.js";

export const HOSTS_FILE = "hosts.json";
export const MANIFEST_EXTENSION = ".json";
/** No manifest needs more: the longest text field is 65,536 characters. */
export const MAX_SOURCE_BYTES = 1024 * 1024;
/** A stats file holds a line per package: 256 MiB is room for millions. */
export const MAX_STATS_BYTES = 256 * 1024 * 1024;

/** A manifest to read: catalogue/<host>/<name>.json. */
export interface ManifestRef {
  host: string;
  name: string;
  file: string;
  /** The package's files beside it, when the host folder lists `<name>.zip` or a folder `<name>/`. */
  files?: "zip" | "folder";
}

/** Per host, the package names a previous build by the same shopfront accepted, with their index in its state. */
export type KnownNames = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** Parses a source file and checks it against a schema; returns the value only when it is valid. */
export function validateJsonFile(
  source: SourceBytes,
  validate: ValidateFunction,
  maxBytes = MAX_SOURCE_BYTES,
): { value?: unknown; findings: Finding[] } {
  if ("error" in source) return { findings: [finding("UNREADABLE", "", `cannot be read: ${source.error}`)] };
  if ("tooLarge" in source) {
    return {
      findings: [finding("FILE_TOO_LARGE", "", `is ${source.tooLarge} bytes; this file may be at most ${maxBytes}`)],
    };
  }
  const parsed = parseJson(source.bytes);
  if (parsed.value === undefined) return parsed;
  const findings = [...parsed.findings];
  if (!validate(parsed.value)) {
    const errors = validate.errors ?? [];
    // Only a file with a number in a wrong place is scanned again, for the number's text.
    const written = errors.some((e) => typeof e.data === "number") ? numbersAsWritten(source.bytes) : undefined;
    const seen = new Set<string>();
    for (const error of errors) {
      // A failed `contains` also reports each item its subschema refused; only the count matters.
      if (error.schemaPath.includes("/contains/")) continue;
      const f = describeSchemaError(error, written);
      const key = `${f.code} ${f.pointer} ${f.message}`;
      if (!seen.has(key)) findings.push(f);
      seen.add(key);
    }
  }
  return { value: findings.some((f) => f.severity === "error") ? undefined : parsed.value, findings };
}

export interface HostsFileResult {
  /** The hosts file, when it is valid. */
  hostsFile?: HostsFile;
  /** Host ids to look for folders of, even when the file has other problems. */
  declared?: readonly string[];
  problems: Problem[];
}

export function validateHostsFile(source: SourceBytes | undefined, validators: Validators): HostsFileResult {
  if (!source)
    return {
      problems: inFile(HOSTS_FILE, [
        finding("MISSING_HOSTS_FILE", "", "is missing: the catalogue's hosts are declared in hosts.json"),
      ]),
    };
  const { value, findings } = validateJsonFile(source, validators.hostsFile);
  const raw = (value ?? parseJsonLenient(source)) as Partial<HostsFile> | undefined;
  const hosts = Array.isArray(raw?.hosts) ? raw.hosts : [];
  const ids = hosts.map((h) => (h as { id?: unknown } | null)?.id);
  const seen = new Map<string, number>();
  ids.forEach((id, index) => {
    if (!isValidName(id)) return;
    const pointer = `/hosts/${index}/id`;
    if (RESERVED_HOST_IDS.some((r) => foldCase(r) === foldCase(id))) {
      findings.push(finding("RESERVED_HOST_ID", pointer, `"${id}" cannot be a host id: /v1/${id} is the host list`));
    }
    if (foldCase(id) === STATS_FOLDER) {
      findings.push(
        finding("RESERVED_HOST_ID", pointer, `"${id}" cannot be a host id: catalogue/${STATS_FOLDER}/ holds the stats`),
      );
    }
    const first = seen.get(foldCase(id));
    if (first !== undefined)
      findings.push(
        finding(
          "DUPLICATE_HOST",
          pointer,
          `"${id}" is already declared at /hosts/${first}/id (host ids are compared ignoring case)`,
        ),
      );
    else seen.set(foldCase(id), index);
  });
  const declared = ids.filter(isValidName);
  if (raw && isValidName(raw.default) && !declared.includes(raw.default)) {
    findings.push(
      finding(
        "UNKNOWN_DEFAULT_HOST",
        "/default",
        `"${raw.default}" is not one of the declared hosts (${declared.join(", ")})`,
      ),
    );
  }
  findings.push(...hostPlaceholderFindings(raw));
  const problems = inFile(HOSTS_FILE, findings);
  const valid = !problems.some((p) => p.severity === "error");
  return { problems, ...(raw ? { declared } : {}), ...(valid ? { hostsFile: value as HostsFile } : {}) };
}

function parseJsonLenient(source: SourceBytes): unknown {
  return "bytes" in source ? parseJson(source.bytes).value : undefined;
}

export interface ManifestResult {
  /** The manifest as written: zip_size, extracted and package_type may be missing when the package has files. */
  manifest?: Manifest;
  problems: Problem[];
}

export function validateManifest(ref: ManifestRef, source: SourceBytes, validators: Validators): ManifestResult {
  const { value, findings } = validateJsonFile(source, validators.manifest);
  const raw = (value ?? parseJsonLenient(source)) as Partial<Manifest> | undefined;
  const name = raw?.internal_name;
  if (typeof name === "string" && name !== ref.name && isValidName(ref.name)) {
    findings.push(
      finding(
        "NAME_MISMATCH",
        "/internal_name",
        `is ${JSON.stringify(name)} but the file is named ${ref.name}${MANIFEST_EXTENSION}: they must be equal`,
      ),
    );
  }
  if (value !== undefined && ref.files === undefined) {
    for (const field of FILES_FIELDS) {
      if ((value as Partial<Manifest>)[field] === undefined) {
        findings.push(
          finding(
            "MISSING_FIELD",
            `/${field}`,
            `is missing: only a package with files beside its manifest (${ref.name}.zip or a folder ${ref.name}/) may leave it to the build`,
          ),
        );
      }
    }
  }
  if (raw && Number.isInteger(raw.updated) && Number.isInteger(raw.release_date) && raw.updated! < raw.release_date!) {
    findings.push(
      finding(
        "UPDATED_BEFORE_RELEASE",
        "/updated",
        `(${raw.updated}) is earlier than /release_date (${raw.release_date})`,
        "warning",
      ),
    );
  }
  // Only peripherals the schema accepts are compared: a wrong one is reported already.
  if (
    Array.isArray(raw?.peripherals) &&
    typeof raw.controllers === "string" &&
    !findings.some((f) => f.pointer === "/controllers" || f.pointer.startsWith("/peripherals")) &&
    !peripheralsAgree(raw.peripherals as string[], raw.controllers)
  ) {
    findings.push(
      finding(
        "PERIPHERALS_MISMATCH",
        "/peripherals",
        `says ${controllersOfPeripherals(raw.peripherals as string[]) || "none"} in controllers' letters, /controllers says ${raw.controllers || "none"}: v3 and v4 say peripherals, v1/v2 and the Homebrew Browser controllers`,
        "warning",
      ),
    );
  }
  findings.push(...manifestPlaceholderFindings(raw), ...guessedDateFindings(raw));
  const problems = inFile(ref.file, findings);
  return problems.some((p) => p.severity === "error")
    ? { problems }
    : { manifest: withoutGuessedDate(value as Manifest), problems };
}

/**
 * The manifest as the build publishes it: a release date still as `import apps` or `new --from`
 * guessed it is published as 0, "unknown" (the site says so), and so is an `updated` that is the
 * same guess. Nobody knows the date, and 0 is older than every date the host knows, whatever its
 * other packages: a guess never leads the newest releases, the feeds or a list sorted by date, in
 * a full build as in a rebuild, which renders a package from its own manifest alone.
 */
function withoutGuessedDate(manifest: Manifest): Manifest {
  if (!hasGuessedDate(manifest)) return manifest;
  const guess = manifest.release_date;
  return { ...manifest, release_date: 0, updated: manifest.updated === guess ? 0 : manifest.updated };
}

export interface StatsFileResult {
  /** The stats file, when it is valid. */
  stats?: StatsFile;
  problems: Problem[];
}

/** Parses a host's stats file (catalogue/stats/<host>.json) and checks it against its schema. */
export function validateStatsFile(file: string, source: SourceBytes, validators: Validators): StatsFileResult {
  const { value, findings } = validateJsonFile(source, validators.stats, MAX_STATS_BYTES);
  const problems = inFile(file, findings);
  return value === undefined ? { problems } : { stats: value as StatsFile, problems };
}

/** The warnings for stats entries of names the host has no package of: kept, since stats outlive packages. */
export function unknownStatsProblems(host: string, names: Iterable<string>): Problem[] {
  return [...names].map((name) => ({
    file: statsFileOf(host),
    ...finding(
      "STATS_UNKNOWN_PACKAGE",
      `/packages/${pointerToken(name)}`,
      `names no package of host ${host}: its numbers are kept, but no package object carries them`,
      "warning",
    ),
  }));
}
