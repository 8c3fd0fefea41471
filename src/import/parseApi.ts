// `import api`, the pure half: the JSON a running API answered (or a saved copy of it) turned into
// what the shared writer imports. Values are passed on as the API gives them, never fixed: the
// writer checks each package by the catalogue's rules and skips it with the reasons. What cannot be
// read as an API answer at all (an HTML page, `null`, a list that is no list) is a FailureError that
// names where it came from, and nothing is imported.
import {
  COMPUTED_FIELDS,
  type HostInfo,
  type HostsFile,
  MANIFEST_FIELDS,
  NO_STATS,
  type PackageStats,
} from "../catalogue/fields.js";
import { isError } from "../catalogue/problems.js";
import type { Validators } from "../catalogue/schemas.js";
import { FailureError } from "../util/errors.js";
import { validateHostsFile } from "../validate/catalogueRules.js";
import type { ImportedPackage, ImportSource, SkippedEntry } from "./writeImport.js";

/** What one host's package list gave. */
export interface HostPackages {
  packages: ImportedPackage[];
  skipped: SkippedEntry[];
  /** Fields beyond the API's 16, with how many of the list's packages had them. */
  notCarriedOver: Map<string, number>;
}

const MANIFEST_KEYS = Object.keys(MANIFEST_FIELDS);
const API_KEYS = new Set([...MANIFEST_KEYS, ...Object.keys(COMPUTED_FIELDS)]);

/** A JSON value named for a message: `null`, `a string`, `a list`. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON of an answer, or a FailureError saying what it is instead (an HTML page, nothing, broken JSON). */
export function parseApiJson(text: string, where: string): unknown {
  // A file saved by a Windows editor may begin with a byte order mark, which JSON.parse refuses.
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body.trim() === "") throw new FailureError(`${where}: the answer is empty, not JSON`);
  if (/^\s*</.test(body)) throw new FailureError(`${where}: the answer is an HTML page, not JSON`);
  try {
    return JSON.parse(body) as unknown;
  } catch (error) {
    throw new FailureError(`${where}: the answer is not valid JSON (${(error as Error).message})`);
  }
}

/**
 * The catalogue's hosts.json made of a /v1/hosts answer: the hosts in `repos` order, the first the
 * default (the API does not say which is). Hosts that a catalogue could not declare (a bad id or
 * host name) fail the import here, before any list is fetched under their id.
 */
export function parseHostList(json: unknown, where: string, validators: Validators): HostsFile {
  const expected = 'the host list, {"repos": [...], "repositories": {...}}';
  if (!isObject(json)) throw new FailureError(`${where}: expected ${expected}, got ${describeValue(json)}`);
  const { repos, repositories } = json;
  if (!Array.isArray(repos) || !repos.every((id) => typeof id === "string"))
    throw new FailureError(`${where}: "repos" is not a list of host ids`);
  if (repos.length === 0) throw new FailureError(`${where}: "repos" lists no hosts`);
  if (!isObject(repositories)) throw new FailureError(`${where}: "repositories" is not an object`);
  const hosts = repos.map((id: string): HostInfo => {
    const entry = Object.hasOwn(repositories, id) ? repositories[id] : undefined;
    if (!isObject(entry))
      throw new FailureError(`${where}: "repositories" has no entry for host ${JSON.stringify(id)}`);
    const field = (key: string): string => {
      const value = entry[key];
      if (typeof value !== "string")
        throw new FailureError(`${where}: repositories.${id}.${key} is ${describeValue(value)}, not a string`);
      return value;
    };
    return { id, name: field("name"), host: field("host"), description: field("description") };
  });
  const hostsFile: HostsFile = { default: repos[0] as string, hosts };
  const checked = validateHostsFile({ bytes: Buffer.from(JSON.stringify(hostsFile)) }, validators);
  const errors = checked.problems.filter(isError);
  if (errors.length > 0)
    throw new FailureError(
      `${where}: these hosts cannot be a catalogue's hosts.json: ${errors.map((p) => `${p.pointer} ${p.message}`).join("; ")}`,
    );
  return hostsFile;
}

/**
 * The numbers of a package object: its `downloads` and `rating` as given (the writer checks them
 * against the stats schema and skips the package if they fail it); one it does not have is the default.
 */
function statsOf(object: Record<string, unknown>): Partial<PackageStats> {
  return Object.fromEntries(
    Object.keys(NO_STATS)
      .filter((key) => Object.hasOwn(object, key))
      .map((key) => [key, object[key]]),
  ) as Partial<PackageStats>;
}

/** The packages of one host's list (`/v1/<host>/packages`), each with its manifest fields as given. */
export function parsePackageList(json: unknown, host: string, where: string): HostPackages {
  if (!Array.isArray(json)) {
    const hint = json === null ? " (the original server answered null for what it did not have)" : "";
    throw new FailureError(`${where}: expected a list of packages, got ${describeValue(json)}${hint}`);
  }
  const result: HostPackages = { packages: [], skipped: [], notCarriedOver: new Map() };
  json.forEach((item: unknown, index) => {
    const source = `${where} [${index}]`;
    if (!isObject(item)) {
      result.skipped.push({ source, host, reasons: [`${describeValue(item)}, not a package object`] });
      return;
    }
    const name = item.internal_name;
    if (typeof name !== "string") {
      const got = Object.hasOwn(item, "internal_name") ? describeValue(name) : "missing";
      result.skipped.push({ source, host, reasons: [`its internal_name is ${got}, not a string`] });
      return;
    }
    const manifest: Record<string, unknown> = {};
    for (const key of MANIFEST_KEYS) if (Object.hasOwn(item, key)) manifest[key] = item[key];
    for (const key of Object.keys(item))
      if (!API_KEYS.has(key)) result.notCarriedOver.set(key, (result.notCarriedOver.get(key) ?? 0) + 1);
    result.packages.push({ host, name, source, manifest, stats: statsOf(item) });
  });
  return result;
}

/** The hosts and every host's list as one import, in the hosts' order. */
export function importSourceOf(hosts: HostsFile, lists: readonly HostPackages[]): ImportSource {
  const notCarriedOver = new Map<string, number>();
  for (const list of lists)
    for (const [field, count] of list.notCarriedOver)
      notCarriedOver.set(field, (notCarriedOver.get(field) ?? 0) + count);
  return {
    hosts,
    packages: lists.flatMap((l) => l.packages),
    skipped: lists.flatMap((l) => l.skipped),
    notCarriedOver,
  };
}
