// Renders a validated catalogue into the files of the static API: a list of path -> content, pure.
import { readFileSync } from "node:fs";
import type { Problem } from "../catalogue/problems.js";
import type { DerivedFiles } from "../packageFiles/inspectPackageZip.js";
import {
  NO_STATS,
  PACKAGE_FIELDS,
  type HostInfo,
  type Manifest,
  type Package,
  type PackageStats,
} from "../catalogue/fields.js";
import { asciiJson, escapeNonAscii } from "../util/asciiJson.js";
import { describeRoute, fileFor, PREFLIGHT_HEADERS, ROUTES } from "../routes/routeTable.js";
import { compareCodePoints } from "../util/codePoints.js";
import type { TodayPackage } from "./renderToday.js";

/** A file of the output. (A host-wide list is never one: streamHost.ts's pass writes it as its packages pass.) */
export interface OutputFile {
  path: string;
  /**
   * A string is the file's bytes as latin1: ASCII for every file but the Homebrew Browser's list
   * (UTF-8 text, renderHbb.ts).
   *
   * The bytes, or a file on disk whose bytes these are (a package's stored files, a host's icon
   * archive: never read into memory): copied, or moved in when `move` (a file the build made for
   * this output).
   */
  content: string | FileContent | SameAs;
}

/**
 * Another file of the same output, by its path there, written as a hard link to it (one inode, no
 * bytes copied): a stored package file again at an alias's path, for a host that cannot rewrite
 * (aliasFilesOf). The file it names is written first.
 */
export interface SameAs {
  sameAs: string;
}

/**
 * What the browse site and the Homebrew Browser's list are told of a package's files (a download
 * link, its icon or the placeholder, the sizes the Wii app compares with what it downloaded).
 */
export interface PackageFilesInfo {
  /** Bytes of the archive as served. */
  zipSize: number;
  /** false when the package has no icon and the placeholder is served. */
  icon: boolean;
  /** Bytes of the icon as served (the placeholder's when it has none). */
  iconSize: number;
  /** Bytes of the binary (boot.dol or boot.elf) as served. */
  binarySize: number;
  /** Every folder under apps/<name>/, written `/apps/<name>/<sub>`, sorted. */
  subdirectories: readonly string[];
}

/**
 * A file's bytes on disk (a package's stored file, a host's icon archive): copied, moved in (made for
 * this build) or linked (the live slot's own).
 */
export interface FileContent {
  file: string;
  move?: boolean;
  link?: boolean;
  /** Its size and SHA-256 when the build took them as it read it (an archive, a binary): not read again for the index. */
  digest?: { size: number; sha256: string };
}

/**
 * What a build remembers of a package's files, so the next build need not read them while they keep
 * their signatures, nor zip, check or hash them while they keep their content: each file's signature
 * by its path in the package (`""` for the zip itself), their content digest, what they derive, their
 * warnings, and where the live slot holds the stored files.
 */
/** What a package-files signature row has in place of a digest for a folder, whose entries are the rows after it. */
export const FOLDER_ROW = -1;

export interface PackageFilesMemo {
  /**
   * Each file and folder's signature, in the order they are walked; a file's row ends with its
   * digest (read/signature.ts) when git knew it (read/gitDigests.ts), a folder's with FOLDER_ROW.
   */
  signatures: [path: string, size: number, mtimeMs: number, ctimeMs: number, ino: number, digest?: number][];
  /** A zip's SHA-256 or a folder's digest (packageFiles/readPackageFiles.ts, zipPackageFolder.ts). */
  content: string;
  derived: DerivedFiles;
  warnings: Problem[];
  /** The stored files' paths in the output, as packageFilePaths gave them. */
  paths: { archive: string; icon: string; binary: string; meta?: string };
}

/** Where the stored files of a package with files come from: files on disk the build writes into its slot. */
export interface StoredPackageFiles {
  archive: FileContent;
  /** Its own icon, or the placeholder (copied). */
  icon: FileContent;
  binary: { name: "boot.dol" | "boot.elf"; content: FileContent };
  /** meta.xml as unpacked; absent when the archive's meta.xml could not be read. */
  meta?: FileContent;
  /** For the next build's state. */
  memo: Omit<PackageFilesMemo, "paths">;
}

export interface RenderedPackage {
  name: string;
  /** The package object as ASCII JSON. */
  json: string;
  /** The values its filtered lists are chosen by. */
  category: string;
  coder: string;
  /** Its entry in the host's stats file; without one it reports NO_STATS. */
  stats?: PackageStats;
  /** Present for a package with files beside its manifest: what the site shows of them. */
  files?: PackageFilesInfo;
  /** With files: where its stored files come from (engine/streamPackageFiles.ts writes them). */
  stored?: StoredPackageFiles;
  /** What today's clients (v3, v4) are told of it. */
  today: TodayPackage;
}

const PACKAGE_KEYS = (Object.keys(PACKAGE_FIELDS) as (keyof Package)[]).sort();

/** One package object: the manifest's fields and its stats, keys in alphabetical order. */
export function renderPackage(manifest: Manifest, stats: PackageStats = NO_STATS): string {
  return escapeNonAscii(JSON.stringify(packageObject(manifest, stats)));
}

/** The package object of the API for a manifest and its stats entry, its keys in the API's order. */
export function packageObject(manifest: Manifest, stats: PackageStats = NO_STATS): Package {
  // Built in key order: JSON.stringify keeps insertion order.
  const pkg: Record<string, unknown> = {};
  for (const key of PACKAGE_KEYS)
    pkg[key] = key in stats ? stats[key as keyof PackageStats] : manifest[key as keyof Manifest];
  return pkg as unknown as Package;
}

/** The host list object: `repos` in the catalogue's order, `repositories` keyed by id with sorted keys. */
export function renderHosts(hosts: readonly HostInfo[]): string {
  const repositories: Record<string, { description: string; host: string; name: string }> = {};
  for (const h of [...hosts].sort((a, b) => compareCodePoints(a.id, b.id))) {
    repositories[h.id] = { description: h.description, host: h.host, name: h.name };
  }
  return asciiJson({ repos: hosts.map((h) => h.id), repositories });
}

export function renderNotFound(): string {
  const forms = ROUTES.map((r) => `GET ${describeRoute(r)}`).filter((form, i, all) => all.indexOf(form) === i);
  return asciiJson({
    error: "not_found",
    message: `No such host, package or endpoint. This API answers ${forms.join(", ")}.`,
  });
}

/** The body of a 405, for hosts whose config or code answers it. */
export function renderMethodNotAllowed(): string {
  return asciiJson({ error: "method_not_allowed", message: `This API answers ${PREFLIGHT_HEADERS.Allow}.` });
}

/** The filtered lists a package is in: its category's, its coder's and the pair's (the filter routes' files). */
function filterFilesOf(host: string, pkg: Pick<RenderedPackage, "category" | "coder">): string[] {
  const { category, coder } = pkg;
  return [
    fileFor("category", { host, category }),
    fileFor("coder", { host, coder }),
    fileFor("category-coder", { host, category, coder }),
  ];
}

/** filterFilesOf for one host, with each coder's key worked out once. */
export function filterKeys(host: string): (pkg: Pick<RenderedPackage, "category" | "coder">) => readonly string[] {
  const known = new Map<string, readonly string[]>();
  return (pkg) => {
    const key = `${pkg.category}\n${pkg.coder}`;
    let files = known.get(key);
    if (!files) known.set(key, (files = filterFilesOf(host, pkg)));
    return files;
  };
}

/** A file's bytes as one string (tests and small files; large lists are written in chunks). */
export function contentText(content: OutputFile["content"]): string {
  if (typeof content === "string") return content;
  // Only the package files have aliases, and no caller reads a package file as text.
  if ("sameAs" in content) throw new Error(`internal: the text of a link to ${content.sameAs} was asked for`);
  return readFileSync(content.file, "latin1");
}
