// The catalogue's rules, as pure functions from plain data (a listing, a file's bytes) to problems.
import type { HostsFile, Manifest } from "../catalogue/fields.js";
import { foldCase, isValidName, NAME_RULE, nameProblem, RESERVED_NAME_RULE } from "../catalogue/names.js";
import { numbersAsWritten, parseJson } from "./parseJson.js";
import { finding, inFile, pointerToken, type Finding, type Problem } from "../catalogue/problems.js";
import { describeSchemaError } from "./describeSchemaError.js";
import type { CatalogueListing, SourceBytes } from "../read/readCatalogue.js";
import { RESERVED_HOST_IDS } from "../routes/routeTable.js";
import type { Validators } from "../catalogue/schemas.js";
import type { ValidateFunction } from "ajv";
import { STATS_FOLDER, statsFileOf, type StatsFile } from "../catalogue/statsFile.js";
import { compareCodePoints } from "../util/codePoints.js";

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
  const problems = inFile(HOSTS_FILE, findings);
  const valid = !problems.some((p) => p.severity === "error");
  return { problems, ...(raw ? { declared } : {}), ...(valid ? { hostsFile: value as HostsFile } : {}) };
}

function parseJsonLenient(source: SourceBytes): unknown {
  return "bytes" in source ? parseJson(source.bytes).value : undefined;
}

export interface ManifestResult {
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
  const problems = inFile(ref.file, findings);
  return problems.some((p) => p.severity === "error") ? { problems } : { manifest: value as Manifest, problems };
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

/** A host's stats file: catalogue/stats/<host>.json. */
export interface StatsRef {
  host: string;
  file: string;
}

export interface LayoutResult {
  manifests: ManifestRef[];
  /** The stats files of declared hosts that have one. */
  stats: StatsRef[];
  problems: Problem[];
}

/**
 * Files an editor or a merge tool leaves next to the file it edits: backups (`snake.json~`,
 * `snake.json.bak`, `snake.json.orig`), Emacs' auto-save files (`#snake.json#`), swap and temporary
 * files, and the file `4913` Vim creates for a moment to test whether a folder is writable. Hidden
 * ones (`.snake.json.swp`) are not listed at all.
 */
const EDITOR_LEFTOVER = /~$|^#.*#$|\.(?:bak|orig|rej|tmp|swp|swo)$|^4913$/i;

function isEditorLeftover(name: string): boolean {
  return EDITOR_LEFTOVER.test(name);
}

function ignoredFile(): Finding {
  return finding("IGNORED_FILE", "", "is ignored: it looks like an editor's backup or temporary file", "warning");
}

/**
 * The folder rules: every folder is a declared host and every declared host a folder, manifests are
 * regular `<name>.json` files with a legal name (editors' backups beside them are ignored, with a
 * warning), no two names of a host differ only in case, and no symbolic links (one could point
 * outside the catalogue). `declared` is undefined when hosts.json is unusable; then every folder is
 * checked as a host, so one run still reports every manifest.
 * `known` names passed the same rules in the previous build (the rules are part of the build's key):
 * they are not checked again, and folding for case collisions is done only when a new name appears.
 */
export function validateLayout(
  listing: CatalogueListing,
  declared: readonly string[] | undefined,
  known?: KnownNames,
): LayoutResult {
  const problems: Problem[] = [];
  const manifests: ManifestRef[] = [];
  const add = (file: string, f: Finding) => problems.push({ file, ...f });
  const rootKinds = new Map(listing.root.map((e) => [e.name, e.kind]));

  for (const entry of listing.root) {
    if (entry.name === STATS_FOLDER && entry.kind !== "symlink") {
      if (entry.kind !== "directory")
        add(entry.name, finding("UNEXPECTED_ENTRY", "", "must be the folder of stats files, stats/<host>.json"));
    } else if (entry.name === HOSTS_FILE) {
      if (entry.kind !== "file")
        add(
          HOSTS_FILE,
          finding(entry.kind === "symlink" ? "SYMLINK" : "UNEXPECTED_ENTRY", "", "must be a regular file"),
        );
    } else if (entry.kind === "symlink") {
      add(entry.name, finding("SYMLINK", "", "is a symbolic link: the catalogue holds only regular files and folders"));
    } else if (entry.kind === "directory" && declared && !declared.includes(entry.name)) {
      add(
        `${entry.name}/`,
        finding(
          "UNDECLARED_HOST_FOLDER",
          "",
          `is not a host declared in ${HOSTS_FILE} (declared: ${declared.join(", ") || "none"})`,
        ),
      );
    } else if (entry.kind !== "directory" && entry.name.endsWith(MANIFEST_EXTENSION)) {
      add(
        entry.name,
        finding("UNEXPECTED_ENTRY", "", "is not in a host folder: manifests are catalogue/<host>/<name>.json"),
      );
    }
  }

  const hosts =
    declared ?? listing.root.filter((e) => e.kind === "directory" && e.name !== STATS_FOLDER).map((e) => e.name);
  hosts.forEach((host, index) => {
    const kind = rootKinds.get(host);
    const where = `/hosts/${index}/id`;
    if (kind === undefined)
      add(
        HOSTS_FILE,
        finding("MISSING_HOST_FOLDER", where, `declares host "${host}" but the catalogue has no folder ${host}/`),
      );
    else if (kind !== "directory" && kind !== "symlink")
      add(host, finding("NOT_A_FOLDER", "", `must be the folder of host "${host}", but it is a file`));
    if (kind !== "directory") return;
    const entries = listing.folders.get(host);
    if (!entries || "error" in entries) {
      add(`${host}/`, finding("UNREADABLE", "", `cannot be listed: ${entries?.error ?? "unknown error"}`));
      return;
    }
    const knownHere = known?.get(host);
    const names: string[] = [];
    let newNames = false;
    for (const entry of entries) {
      const file = `${host}/${entry.name}`;
      if (entry.kind === "symlink") {
        add(file, finding("SYMLINK", "", "is a symbolic link: manifests must be regular files"));
        continue;
      }
      if (entry.kind === "file" && isEditorLeftover(entry.name)) {
        add(file, ignoredFile());
        continue;
      }
      if (entry.kind !== "file" || !entry.name.endsWith(MANIFEST_EXTENSION)) {
        add(
          entry.kind === "directory" ? `${file}/` : file,
          finding(
            "UNEXPECTED_ENTRY",
            "",
            `is not a manifest: a host folder holds only <internal_name>${MANIFEST_EXTENSION} files`,
          ),
        );
        continue;
      }
      const name = entry.name.slice(0, -MANIFEST_EXTENSION.length);
      if (knownHere?.has(name) !== true) {
        newNames = true;
        const nameCode = nameProblem(name);
        if (nameCode) {
          add(
            file,
            finding(
              nameCode,
              "",
              `has a file name that cannot be a package name: ${JSON.stringify(name)} ${nameCode === "INVALID_NAME" ? NAME_RULE : RESERVED_NAME_RULE}`,
            ),
          );
        }
      }
      names.push(name);
      manifests.push({ host, name, file });
    }
    if (newNames) addCaseCollisions(host, names, add);
  });
  const stats = rootKinds.get(STATS_FOLDER) === "directory" ? validateStatsLayout(listing, hosts, add) : [];
  return { manifests, stats, problems };
}

/** The stats folder's rules: it holds only regular files named after declared hosts, <host>.json. */
function validateStatsLayout(
  listing: CatalogueListing,
  hosts: readonly string[],
  add: (file: string, f: Finding) => void,
): StatsRef[] {
  const entries = listing.folders.get(STATS_FOLDER);
  if (!entries || "error" in entries) {
    add(`${STATS_FOLDER}/`, finding("UNREADABLE", "", `cannot be listed: ${entries?.error ?? "unknown error"}`));
    return [];
  }
  const stats: StatsRef[] = [];
  for (const entry of entries) {
    const file = `${STATS_FOLDER}/${entry.name}`;
    const host = entry.name.endsWith(MANIFEST_EXTENSION) ? entry.name.slice(0, -MANIFEST_EXTENSION.length) : undefined;
    if (entry.kind === "symlink")
      add(file, finding("SYMLINK", "", "is a symbolic link: stats files must be regular files"));
    else if (entry.kind === "file" && host !== undefined && hosts.includes(host))
      stats.push({ host, file: statsFileOf(host) });
    else if (entry.kind === "file" && isEditorLeftover(entry.name)) add(file, ignoredFile());
    else
      add(
        entry.kind === "directory" ? `${file}/` : file,
        finding(
          "UNEXPECTED_ENTRY",
          "",
          `is not the stats file of a declared host: ${STATS_FOLDER}/ holds only <host>${MANIFEST_EXTENSION} files (hosts: ${hosts.join(", ") || "none"})`,
        ),
      );
  }
  return stats.sort((a, b) => hosts.indexOf(a.host) - hosts.indexOf(b.host));
}

/**
 * Names of one host that fold to the same key, reported on all but the first in name order (so
 * the report does not depend on the order the file system lists them in).
 */
function addCaseCollisions(host: string, names: readonly string[], add: (file: string, f: Finding) => void): void {
  const byFolded = new Map<string, string[]>();
  for (const name of names) {
    const folded = foldCase(name);
    const same = byFolded.get(folded);
    if (same) same.push(name);
    else byFolded.set(folded, [name]);
  }
  for (const same of byFolded.values()) {
    if (same.length < 2) continue;
    const [first, ...others] = same.sort(compareCodePoints);
    for (const name of others) {
      add(
        `${host}/${name}${MANIFEST_EXTENSION}`,
        finding(
          "CASE_COLLISION",
          "",
          `differs from ${host}/${first}${MANIFEST_EXTENSION} only in case: they collide on case-insensitive file systems and caches`,
        ),
      );
    }
  }
}
