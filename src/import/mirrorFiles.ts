// `import hbb --files DIR`: a Homebrew Browser mirror's archives (`DIR/hbb/<name>/<name>.zip`, as the
// Open Shop Channel serves them beside its list) given to the packages of its list, to be copied
// into the catalogue as package files. Icons are not taken: the archive holds the icon the build
// serves (`apps/<name>/icon.png`, or the placeholder where it has none), which is what a mirror's
// `hbb/<name>.png` and `hbb/<name>/icon.png` are made of.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { FILES_FIELDS } from "../catalogue/fields.js";
import { isValidName } from "../catalogue/names.js";
import { UsageError } from "../util/errors.js";
import type { ImportSource } from "./writeImport.js";

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/**
 * The source with each package whose archive the mirror has: its manifest leaves out what the files
 * give, and the archive must have the size the list states. A package the mirror has no archive
 * for is imported without files, and the notes name it.
 */
export function withMirrorFiles(source: ImportSource, dir: string): ImportSource {
  if (!existsSync(join(dir, "hbb")) || !statSync(join(dir, "hbb")).isDirectory())
    throw new UsageError(`--files ${dir}: it has no hbb/ folder (expected a mirror's hbb/<name>/<name>.zip)`);
  const missing: string[] = [];
  const packages = source.packages.map((pkg) => {
    // A name that breaks the rule is never made a path; the writer reports it.
    if (!isValidName(pkg.name)) return pkg;
    const file = join(dir, "hbb", pkg.name, `${pkg.name}.zip`);
    if (!isFile(file)) {
      missing.push(pkg.name);
      return pkg;
    }
    const manifest = { ...pkg.manifest };
    const size = manifest.zip_size;
    for (const field of FILES_FIELDS) delete manifest[field];
    return { ...pkg, manifest, archive: { file, ...(typeof size === "number" ? { size } : {}) } };
  });
  const notes = [...(source.notes ?? [])];
  if (missing.length > 0)
    notes.push(
      `the mirror has no hbb/<name>/<name>.zip for ${missing.length === 1 ? "" : `${missing.length} packages: `}${missing.slice(0, 10).join(", ")}${missing.length > 10 ? ` and ${missing.length - 10} more` : ""}: imported without files`,
    );
  return { ...source, packages, notes };
}
