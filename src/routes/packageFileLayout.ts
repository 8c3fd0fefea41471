// Where a package's files sit in the built tree: at the URLs the Open Shop Channel serves them from
// (its server derives and serves them; see docs/catalogue.md, "Package files"), so a host that cannot rewrite still
// serves the most used URL of each file as it is. The default host's packages are at the root, as
// on the OSC; every other host's under `hosts/<host>/`, a folder no other URL of the build starts with.
// The other URLs of the same files (`/hbb/<name>.png`, `/api/contents/...`) are aliases the route
// table maps onto these stored files.
import { assertValidName } from "../catalogue/names.js";

/** The binary of a package: its file name in `apps/<name>/`. */
export type BinaryName = "boot.dol" | "boot.elf";

/** Every binary name a package may have, in the order the route table lists them. */
export const BINARY_NAMES: readonly BinaryName[] = ["boot.dol", "boot.elf"];

/** The folder that every URL of a host's package files starts with (`""` or `hosts/<host>/`). */
export function packageFilesPrefix(host: string, defaultHost: string): string {
  return host === defaultHost ? "" : `hosts/${assertValidName(host, "host")}/`;
}

/** The folder of a non-default host's package files, as a template (`hosts/{host}/`). */
export const HOST_FILES_PREFIX = "hosts/{host}/";

/**
 * The stored files of one package, as templates relative to the prefix (`{name}` is the package's
 * name; each segment holding it is the name alone or the name and a fixed suffix). The route table
 * writes its file routes from these, and packageFilePaths fills them.
 */
export const PACKAGE_FILE_TEMPLATES = {
  archive: "hbb/{name}/{name}.zip",
  icon: "hbb/{name}/icon.png",
  "boot.dol": "unzipped_apps/{name}/apps/{name}/boot.dol",
  "boot.elf": "unzipped_apps/{name}/apps/{name}/boot.elf",
  meta: "unzipped_apps/{name}/apps/{name}/meta.xml",
} as const;

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
  const fill = (template: string) => `${prefix}${template.split("{name}").join(n)}`;
  return {
    archive: fill(PACKAGE_FILE_TEMPLATES.archive),
    icon: fill(PACKAGE_FILE_TEMPLATES.icon),
    binary: fill(PACKAGE_FILE_TEMPLATES[binary]),
    meta: fill(PACKAGE_FILE_TEMPLATES.meta),
  };
}
