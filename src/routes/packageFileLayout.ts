// Where a package's files sit in the built tree: at the URLs the Open Shop Channel serves them from
// (../shared/reference/osc-today.md, "The package files"), so a host that cannot rewrite still
// serves the most used URL of each file as it is. The default host's packages are at the root, as
// on the OSC; every other host's under `hosts/<host>/`, a folder no other URL of the build starts with.
// The other URLs of the same files (`/hbb/<name>.png`, `/api/contents/...`) are aliases the route
// table maps onto these stored files.
import { assertValidName } from "../catalogue/names.js";

/** The binary of a package: its file name in `apps/<name>/`. */
export type BinaryName = "boot.dol" | "boot.elf";

/** The folder that every URL of a host's package files starts with (`""` or `hosts/<host>/`). */
export function packageFilesPrefix(host: string, defaultHost: string): string {
  return host === defaultHost ? "" : `hosts/${assertValidName(host, "host")}/`;
}

/** The stored files of one package, as paths relative to the built tree's root. */
export interface PackageFilePaths {
  /** The archive: `hbb/<name>/<name>.zip`. */
  archive: string;
  /** The icon (the placeholder when the package has none): `hbb/<name>/icon.png`. */
  icon: string;
  /** The binary as unpacked: `unzipped_apps/<name>/apps/<name>/boot.dol` (or `boot.elf`). */
  binary: string;
  /** meta.xml as unpacked: `unzipped_apps/<name>/apps/<name>/meta.xml`. */
  meta: string;
}

export function packageFilePaths(
  host: string,
  defaultHost: string,
  name: string,
  binary: BinaryName,
): PackageFilePaths {
  const prefix = packageFilesPrefix(host, defaultHost);
  const n = assertValidName(name, "name");
  return {
    archive: `${prefix}hbb/${n}/${n}.zip`,
    icon: `${prefix}hbb/${n}/icon.png`,
    binary: `${prefix}unzipped_apps/${n}/apps/${n}/${binary}`,
    meta: `${prefix}unzipped_apps/${n}/apps/${n}/meta.xml`,
  };
}
