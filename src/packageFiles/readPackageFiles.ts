// The package files' step of a build: find them, zip a folder reproducibly, check the archive that
// will be served and derive its values. Problems name the catalogue's file: the archive (with the
// entry in the message), or for a folder the file inside it.
import { join } from "node:path";
import { inFile, type Problem } from "../catalogue/problems.js";
import type { PackageFinding } from "./checkZipEntries.js";
import { findPackageFiles, type PackageFiles } from "./findPackageFiles.js";
import { zipAndCheckFolder } from "./checkFolderZip.js";
import { inspectPackageZip, type DerivedFiles, type PackageZipReport } from "./inspectPackageZip.js";
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from "./zipLimits.js";

export interface PackageFilesResult {
  files: PackageFiles;
  /** The archive to serve: the catalogue's zip, or the one built from the folder in `workDir`. */
  archive?: string;
  derived?: DerivedFiles;
  problems: Problem[];
  /**
   * With `derived`: the files' content digest, what a later build compares to know them unchanged
   * without reading them again: a zip's SHA-256, or a folder's digest (FolderDigest).
   */
  content?: string;
}

/** The content digest of a zip: its SHA-256, which the build takes anyway. */
export function zipContent(sha256: string): string {
  return `zip:${sha256}`;
}

/**
 * The findings as problems of the catalogue's files. A folder's finding about one of its files is
 * that file's, and its message then goes without the entry's path it starts with: the report names
 * the file already.
 */
function toProblems(files: Exclude<PackageFiles, { kind: "none" }>, findings: readonly PackageFinding[]): Problem[] {
  return findings.map(({ entry, ...f }) => {
    if (files.kind !== "folder" || entry === undefined) return inFile(files.file, [f])[0]!;
    const message = f.message.startsWith(`${entry}: `)
      ? f.message.slice(entry.length + 2)
      : f.message.startsWith(`${entry} `)
        ? f.message.slice(entry.length + 1)
        : f.message;
    return inFile(`${files.file}${entry}`, [{ ...f, message }])[0]!;
  });
}

/**
 * Reads the files of package `name` of `host`. A folder is zipped into `<workDir>/<host>/<name>.zip`.
 * `files.kind` is "none" for a package without files (no archive, nothing derived). With `unpackTo`,
 * the entries served beside the archive are written there as the archive is checked (inspectPackageZip).
 */
export async function readPackageFiles(
  catalogueDir: string,
  host: string,
  name: string,
  options: { workDir: string; limits?: ZipLimits; unpackTo?: string },
): Promise<PackageFilesResult> {
  const { files, problems } = await findPackageFiles(catalogueDir, host, name);
  if (files.kind === "none") return { files, problems };
  const limits = options.limits ?? DEFAULT_ZIP_LIMITS;
  let archive = files.path;
  let zipped: Awaited<ReturnType<typeof zipAndCheckFolder>> | undefined;
  let report: PackageZipReport;
  if (files.kind === "folder") {
    archive = join(options.workDir, host, `${name}.zip`);
    zipped = await zipAndCheckFolder(files.path, archive, name, { limits, unpackTo: options.unpackTo });
    if (!zipped.report) return { files, problems: [...problems, ...toProblems(files, zipped.findings)] };
    report = zipped.report;
  } else report = await inspectPackageZip(archive, name, { limits, unpackTo: options.unpackTo });
  const result: PackageFilesResult = {
    files,
    archive,
    problems: [...problems, ...toProblems(files, [...(zipped?.findings ?? []), ...report.findings])],
  };
  if (report.derived) {
    result.derived = report.derived;
    result.content = zipped?.digest ?? zipContent(report.derived.zip_sha256);
  }
  return result;
}
