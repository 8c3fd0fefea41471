// Over 350 lines: the one pure comparison of two snapshots, field by field for every client, whose
// parts share the per-app change records.
// Two builds compared as their clients see them, pure: per host the apps added, removed, renamed and
// updated (each changed field and package file), the Homebrew Browser list's entries and leavers;
// per kind of client the files that change; the problems a change brings or clears; and what a
// deploy of the second side would send.
import type { Problem } from "../catalogue/problems.js";
import { PACKAGE_FILE_TEMPLATES } from "../routes/packageFileLayout.js";
import type { IndexedFile } from "../trust/fileIndex.js";
import { compareCodePoints } from "../util/codePoints.js";
import {
  PACKAGE_FILE_KINDS,
  type AppRecord,
  type HostSnapshot,
  type PackageFileKind,
  type Snapshot,
} from "./readSnapshot.js";
import { wordDiff, type WordChange } from "./wordDiff.js";

/** A file's size and SHA-256. */
export interface FileState {
  size: number;
  sha256: string;
}

export interface FieldChange {
  field: string;
  /** The client that receives the field, when it is not the v1/v2 API's package object. */
  client?: "v4-v3" | "homebrew-browser";
  from: unknown;
  to: unknown;
  /** For a description or a list entry: the words removed and added. */
  words?: WordChange[];
  /** A description whose words are the same: only its spaces or line breaks moved. */
  whitespaceOnly?: true;
}

/** A file inside a package's zip that was added, removed or changed (by its CRC-32 or size). */
export interface ZipEntryChange {
  path: string;
  from: { size: number; crc32: number } | null;
  to: { size: number; crc32: number } | null;
}

export interface PackageFileChange {
  kind: PackageFileKind;
  /** The URL path of the second side's file (the first side's when it is gone). */
  path: string;
  from: FileState | null;
  to: FileState | null;
}

export interface AppRef {
  name: string;
  displayName: string;
  version: string;
}

export interface AppAdded extends AppRef {
  /** It writes to the console's NAND (the v4 flag `WRITES_TO_NAND`). */
  writesToNand: boolean;
  /** Other apps of the second side (`host/name`) whose binary is this one's, byte for byte. */
  sameBinaryAs: string[];
}

export interface AppUpdate extends AppRef {
  fields: FieldChange[];
  files: PackageFileChange[];
  /** The archive changed and the version did not: clients that compare versions never fetch it. */
  archiveChangedVersionSame: boolean;
  /** It did not write to the NAND and now does. */
  gainsNand: boolean;
  /** The files inside its zip that changed, when both zips could be read (diffBuilds reads them). */
  zipEntries?: ZipEntryChange[];
  /** Its meta.xml's lines removed and added, when both could be read. */
  metaXml?: WordChange[];
}

export interface AppRename {
  from: AppRef;
  to: AppRef;
}

export interface HostDiff {
  host: string;
  /** Whether the host is in both sides, or only in the second (added) or the first (removed). */
  status: "kept" | "added" | "removed";
  added: AppAdded[];
  removed: AppRef[];
  renamed: AppRename[];
  updated: AppUpdate[];
  /** The Homebrew Browser's list (600 entries at most): the apps it gains and loses, and its length on each side. */
  hbb: { entered: string[]; left: string[]; from: number; to: number };
  /** The v4/v3 featured app's slug on each side (null: none), when it moved. */
  featured?: { from: string | null; to: string | null };
}

export type ClientKind = "v1-v2" | "v4-v3" | "homebrew-browser" | "package-files" | "site" | "other";
export const CLIENT_KINDS: readonly ClientKind[] = [
  "v1-v2",
  "v4-v3",
  "homebrew-browser",
  "package-files",
  "site",
  "other",
];

export interface ClientCounts {
  kind: ClientKind;
  added: number;
  removed: number;
  changed: number;
}

export interface ProblemDiff {
  introduced: Problem[];
  fixed: Problem[];
}

/** What changes between two snapshots; diffBuilds adds what each side was. */
export interface Comparison {
  /** Whether every served file is the same, byte for byte, on both sides. */
  same: boolean;
  hosts: HostDiff[];
  clients: ClientCounts[];
  files: { added: number; removed: number; changed: number; unchanged: number };
  /** What a deploy of the second side over the first sends (files added or changed, their bytes) and deletes. */
  deploy: { files: number; bytes: number; deleted: number };
  /** Null when a side's problems are not known (a deployment, or a folder without its build's state). */
  problems: ProblemDiff | null;
}

/** Fields whose change a client sees through a package file's change (reported with the file). */
const FILE_FIELDS = new Set(["zip_size", "extracted"]);
const WORD_FIELDS = new Set(["short_description", "long_description"]);
/**
 * The v4 object's fields that say what a v1 field says (reported as that field) or are a package
 * file's (reported with the file); every other v4 field (flags, authors, peripherals, supported
 * platforms, subdirectories, ...) is reported as the v4/v3 API's own.
 */
const V4_AS_V1 = new Set([
  "slug",
  "name",
  "author",
  "category",
  "contributors",
  "description",
  "downloads",
  "package_type",
  "release_date",
  "uncompressed_size",
  "version",
  "assets",
]);
const NAND_FLAG = "WRITES_TO_NAND";

const writesToNand = (app: AppRecord) =>
  Array.isArray(app.today?.flags) && (app.today.flags as unknown[]).includes(NAND_FLAG);

function refOf(app: AppRecord): AppRef {
  const text = (field: string) => (typeof app.fields[field] === "string" ? (app.fields[field] as string) : "");
  return { name: app.name, displayName: text("display_name"), version: text("version") };
}

const byName = (a: { name: string }, b: { name: string }) => compareCodePoints(a.name, b.name);

function sameFile(a: IndexedFile | undefined, b: IndexedFile | undefined): boolean {
  return a?.sha256 === b?.sha256 && a?.size === b?.size;
}

const stateOf = (file: IndexedFile | undefined): FileState | null =>
  file ? { size: file.size, sha256: file.sha256 } : null;

function objectChanges(
  from: Record<string, unknown>,
  to: Record<string, unknown>,
  skip: (field: string) => boolean,
  client?: FieldChange["client"],
): FieldChange[] {
  const names = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort(compareCodePoints);
  const changes: FieldChange[] = [];
  for (const field of names) {
    if (skip(field)) continue;
    const a = from[field];
    const b = to[field];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const change: FieldChange = { field, ...(client ? { client } : {}), from: a ?? null, to: b ?? null };
    if (WORD_FIELDS.has(field) && typeof a === "string" && typeof b === "string") {
      const words = wordDiff(a, b);
      if (words.length > 0) change.words = words;
      else change.whitespaceOnly = true;
    }
    changes.push(change);
  }
  return changes;
}

/** Each field a client receives that changed: the v1 object's, the v4 object's own, the list entry. */
function fieldChanges(from: AppRecord, to: AppRecord): FieldChange[] {
  const changes = objectChanges(from.fields, to.fields, (f) => f === "internal_name" || FILE_FIELDS.has(f));
  changes.push(...objectChanges(from.today ?? {}, to.today ?? {}, (f) => V4_AS_V1.has(f), "v4-v3"));
  if (from.hbbEntry !== undefined && to.hbbEntry !== undefined && from.hbbEntry !== to.hbbEntry) {
    const words = wordDiff(from.hbbEntry, to.hbbEntry);
    changes.push({
      field: "list entry",
      client: "homebrew-browser",
      from: from.hbbEntry,
      to: to.hbbEntry,
      ...(words.length > 0 ? { words } : { whitespaceOnly: true as const }),
    });
  }
  return changes;
}

function fileChanges(from: AppRecord, to: AppRecord): PackageFileChange[] {
  return PACKAGE_FILE_KINDS.flatMap((kind) => {
    const a = from.files[kind];
    const b = to.files[kind];
    if (sameFile(a, b)) return [];
    return [{ kind, path: (b ?? a)!.path, from: stateOf(a), to: stateOf(b) }];
  });
}

/** What makes an app the same app under a new name: its binary's or archive's bytes, else its fields. */
function identityOf(app: AppRecord): string {
  const file = app.files.binary ?? app.files.archive;
  if (file) return `file:${file.sha256}`;
  const { internal_name: _name, ...rest } = app.fields;
  return `fields:${JSON.stringify(rest)}`;
}

const emptyHost = (id: string): HostSnapshot => ({ id, apps: new Map(), hbbListed: new Set() });

/** Each binary's apps on a side (`host/name`), by the binary's SHA-256. */
function binariesOf(snapshot: Snapshot): Map<string, string[]> {
  const apps = new Map<string, string[]>();
  for (const host of snapshot.hosts.values())
    for (const app of host.apps.values()) {
      const binary = app.files.binary;
      if (binary) apps.set(binary.sha256, [...(apps.get(binary.sha256) ?? []), `${host.id}/${app.name}`]);
    }
  return apps;
}

function compareHost(
  id: string,
  a: HostSnapshot | undefined,
  b: HostSnapshot | undefined,
  binaries: ReadonlyMap<string, readonly string[]>,
): HostDiff {
  const from = a ?? emptyHost(id);
  const to = b ?? emptyHost(id);
  const added: AppRecord[] = [];
  const removed: AppRecord[] = [];
  const updated: AppUpdate[] = [];
  for (const [name, app] of to.apps) if (!from.apps.has(name)) added.push(app);
  for (const [name, app] of from.apps) {
    const next = to.apps.get(name);
    if (!next) {
      removed.push(app);
      continue;
    }
    const fields = fieldChanges(app, next);
    const files = fileChanges(app, next);
    if (fields.length === 0 && files.length === 0) continue;
    const archiveChanged = files.some((f) => f.kind === "archive" && f.from !== null && f.to !== null);
    updated.push({
      ...refOf(next),
      fields,
      files,
      archiveChangedVersionSame: archiveChanged && !fields.some((f) => f.field === "version"),
      gainsNand: !writesToNand(app) && writesToNand(next),
    });
  }
  // A removed app and an added one with the same identity are one app renamed.
  const renamed: AppRename[] = [];
  const addedBy = new Map<string, AppRecord[]>();
  for (const app of added) addedBy.set(identityOf(app), [...(addedBy.get(identityOf(app)) ?? []), app]);
  const renamedNames = new Set<string>();
  for (const app of removed.sort(byName)) {
    const match = addedBy.get(identityOf(app))?.find((c) => !renamedNames.has(c.name));
    if (!match) continue;
    renamedNames.add(match.name).add(`\0${app.name}`);
    renamed.push({ from: refOf(app), to: refOf(match) });
  }
  const addedOf = (app: AppRecord): AppAdded => ({
    ...refOf(app),
    writesToNand: writesToNand(app),
    sameBinaryAs: app.files.binary
      ? (binaries.get(app.files.binary.sha256) ?? []).filter((other) => other !== `${id}/${app.name}`)
      : [],
  });
  const featured =
    from.featured !== undefined && to.featured !== undefined && from.featured !== to.featured
      ? { featured: { from: from.featured, to: to.featured } }
      : {};
  const entered = [...to.hbbListed].filter((n) => !from.hbbListed.has(n)).sort(compareCodePoints);
  const left = [...from.hbbListed].filter((n) => !to.hbbListed.has(n)).sort(compareCodePoints);
  return {
    host: id,
    status: a && b ? "kept" : b ? "added" : "removed",
    added: added
      .filter((app) => !renamedNames.has(app.name))
      .sort(byName)
      .map(addedOf),
    removed: removed.filter((app) => !renamedNames.has(`\0${app.name}`)).map(refOf),
    renamed,
    updated: updated.sort(byName),
    hbb: { entered, left, from: from.hbbListed.size, to: to.hbbListed.size },
    ...featured,
  };
}

/** The package file templates as patterns over a path below a host's prefix. */
const PACKAGE_FILE_PATTERNS = Object.values(PACKAGE_FILE_TEMPLATES).map(
  (template) => new RegExp(`^/${template.replace(/[.]/g, "\\.").replace(/\{name\}/g, "[^/]+")}$`),
);

/** Which kind of client fetches the file at a URL path. */
export function clientKindOf(path: string): ClientKind {
  const local = path.replace(/^\/hosts\/[^/]+(?=\/)/, "");
  if (/^\/v[12]\//.test(local)) return "v1-v2";
  if (/^\/api\/v[34]\//.test(local)) return "v4-v3";
  if (PACKAGE_FILE_PATTERNS.some((p) => p.test(local))) return "package-files";
  if (/^\/hbb[/_]/.test(local)) return "homebrew-browser";
  if (local === "/" || /^\/(browse|assets)\//.test(local) || local.endsWith(".html")) return "site";
  return "other";
}

function problemKey(p: Problem): string {
  return JSON.stringify([p.file, p.pointer, p.code, p.severity, p.message]);
}

function compareProblems(a: readonly Problem[], b: readonly Problem[]): ProblemDiff {
  const before = new Set(a.map(problemKey));
  const after = new Set(b.map(problemKey));
  return { introduced: b.filter((p) => !before.has(problemKey(p))), fixed: a.filter((p) => !after.has(problemKey(p))) };
}

/** What changes from side `a` to side `b`. */
export function compareSnapshots(a: Snapshot, b: Snapshot): Comparison {
  const clients = new Map<ClientKind, ClientCounts>(
    CLIENT_KINDS.map((kind) => [kind, { kind, added: 0, removed: 0, changed: 0 }]),
  );
  const files = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  const deploy = { files: 0, bytes: 0, deleted: 0 };
  for (const [path, file] of b.files) {
    const before = a.files.get(path);
    if (sameFile(before, file)) {
      files.unchanged++;
      continue;
    }
    const change = before ? "changed" : "added";
    files[change]++;
    clients.get(clientKindOf(path))![change]++;
    deploy.files++;
    deploy.bytes += file.size;
  }
  for (const path of a.files.keys()) {
    if (b.files.has(path)) continue;
    files.removed++;
    clients.get(clientKindOf(path))!.removed++;
    deploy.deleted++;
  }
  const hostIds = [...new Set([...a.hosts.keys(), ...b.hosts.keys()])].sort(compareCodePoints);
  const binaries = binariesOf(b);
  const hosts = hostIds
    .map((id) => compareHost(id, a.hosts.get(id), b.hosts.get(id), binaries))
    .filter(
      (h) =>
        h.status !== "kept" ||
        h.added.length +
          h.removed.length +
          h.renamed.length +
          h.updated.length +
          h.hbb.entered.length +
          h.hbb.left.length >
          0 ||
        h.featured !== undefined,
    );
  return {
    same: files.added + files.removed + files.changed === 0,
    hosts,
    clients: [...clients.values()],
    files,
    deploy,
    problems: a.problems && b.problems ? compareProblems(a.problems, b.problems) : null,
  };
}
