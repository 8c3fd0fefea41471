// Where a package's files live: beside its manifest catalogue/<host>/<name>.json, either the archive
// `<host>/<name>.zip` (published byte for byte) or the folder `<host>/<name>/` holding the SD card tree
// (zipped reproducibly by the build). A package may have neither (its manifest alone, as before).
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { finding, inFile, type Problem } from "../catalogue/problems.js";

export type PackageFiles =
  /** `path` is on disk; `file` is relative to the catalogue, `/`-separated, as problems name files. */
  | { kind: "zip"; path: string; file: string }
  /** `file` ends in `/`, as a folder does in problems. */
  | { kind: "folder"; path: string; file: string }
  | { kind: "none" };

type Found = "file" | "directory" | "symlink" | "other" | "missing";

async function kindAt(path: string): Promise<Found> {
  try {
    const s = await lstat(path);
    return s.isSymbolicLink() ? "symlink" : s.isFile() ? "file" : s.isDirectory() ? "directory" : "other";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    throw error;
  }
}

/** Finds the files of package `name` of host `host` in the catalogue folder `catalogueDir`. */
export async function findPackageFiles(
  catalogueDir: string,
  host: string,
  name: string,
): Promise<{ files: PackageFiles; problems: Problem[] }> {
  const zipFile = `${host}/${name}.zip`;
  const folderFile = `${host}/${name}/`;
  const zipPath = join(catalogueDir, host, `${name}.zip`);
  const folderPath = join(catalogueDir, host, name);
  const [zipKind, folderKind] = await Promise.all([kindAt(zipPath), kindAt(folderPath)]);
  const problems: Problem[] = [];
  const expect = (file: string, kind: Found, wanted: Found, what: string): boolean => {
    if (kind === "missing") return false;
    if (kind === "symlink") {
      problems.push(
        ...inFile(file.replace(/\/$/, ""), [
          finding("SYMLINK", "", "a symbolic link (refused: it could point outside)"),
        ]),
      );
    } else if (kind !== wanted) {
      problems.push(...inFile(file.replace(/\/$/, ""), [finding("UNEXPECTED_ENTRY", "", `expected ${what}`)]));
    }
    return true;
  };
  const hasZip = expect(zipFile, zipKind, "file", "a zip file");
  const hasFolder = expect(folderFile, folderKind, "directory", "a folder holding the package's SD card tree");
  if (hasZip && hasFolder) {
    problems.push(
      ...inFile(folderFile, [
        finding("PACKAGE_FILES_TWICE", "", `both ${zipFile} and ${folderFile} hold the package's files: keep one`),
      ]),
    );
  }
  if (problems.length > 0 || (!hasZip && !hasFolder)) return { files: { kind: "none" }, problems };
  return hasZip
    ? { files: { kind: "zip", path: zipPath, file: zipFile }, problems }
    : { files: { kind: "folder", path: folderPath, file: folderFile }, problems };
}
