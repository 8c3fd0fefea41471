// The catalogue's rules for its layout, as pure functions from a listing to problems: which folders
// and files a catalogue holds (hosts declared in hosts.json, <host>/<name>.json, stats/<host>.json),
// editors' leftovers, and names that differ only in case.
import { foldCase, isValidName, NAME_RULE, nameProblem, RESERVED_NAME_RULE } from "../catalogue/names.js";
import { finding, type Finding, type Problem } from "../catalogue/problems.js";
import type { CatalogueListing } from "../read/readCatalogue.js";
import { STATS_FOLDER, statsFileOf } from "../catalogue/statsFile.js";
import { compareCodePoints } from "../util/codePoints.js";
import { HOSTS_FILE, MANIFEST_EXTENSION, type KnownNames, type ManifestRef } from "./catalogueRules.js";

/** A host's stats file: catalogue/stats/<host>.json. */
export interface StatsRef {
  host: string;
  file: string;
}

export interface LayoutResult {
  manifests: ManifestList;
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
 * The manifests a layout found: each host's manifest file names as listed (the listing's own
 * strings, no copy) and the few that have package files beside them. A million manifests cost a
 * pointer each beyond their names; the refs are made one at a time as they are walked.
 */
export class ManifestList {
  readonly #hosts: { host: string; files: string[]; packageFiles: Map<string, "zip" | "folder"> }[] = [];
  #count = 0;

  addHost(host: string, files: string[], packageFiles: Map<string, "zip" | "folder">): void {
    this.#hosts.push({ host, files, packageFiles });
    this.#count += files.length;
  }

  /** How many manifests there are, on every host. */
  get length(): number {
    return this.#count;
  }

  /** How many manifests each host has. */
  counts(): Map<string, number> {
    return new Map(this.#hosts.map((h) => [h.host, h.files.length]));
  }

  /** Whether any package has files beside its manifest. */
  hasPackageFiles(): boolean {
    return this.#hosts.some((h) => h.packageFiles.size > 0);
  }

  /** The file names of `host`'s manifests (`<name>.json`), as listed. */
  filesOf(host: string): readonly string[] {
    return this.#hosts.find((h) => h.host === host)?.files ?? [];
  }

  /** Every manifest in listing order. */
  *[Symbol.iterator](): Generator<ManifestRef> {
    for (const { host, files, packageFiles } of this.#hosts)
      for (const file of files) yield refOf(host, file, packageFiles);
  }

  /** A host's manifests, in code-point order of their names, made one at a time as they are walked. */
  sortedOf(host: string): Iterable<ManifestRef> & { length: number } {
    const found = this.#hosts.find((h) => h.host === host);
    if (!found) return [];
    const { files, packageFiles } = found;
    return {
      length: files.length,
      *[Symbol.iterator]() {
        for (const file of [...files].sort(compareManifestFiles)) yield refOf(host, file, packageFiles);
      },
    };
  }

  /** Every manifest, hosts in `order` (others after, by id), names in code-point order within a host. */
  *sorted(order: readonly string[]): Generator<ManifestRef> {
    const rank = (host: string) => {
      const at = order.indexOf(host);
      return at < 0 ? order.length : at;
    };
    const hosts = [...this.#hosts].sort((a, b) => rank(a.host) - rank(b.host) || compareCodePoints(a.host, b.host));
    for (const { host, files, packageFiles } of hosts) {
      for (const file of [...files].sort(compareManifestFiles)) yield refOf(host, file, packageFiles);
    }
  }
}

function refOf(host: string, file: string, packageFiles: ReadonlyMap<string, "zip" | "folder">): ManifestRef {
  const name = file.slice(0, -MANIFEST_EXTENSION.length);
  const files = packageFiles.size > 0 ? packageFiles.get(name) : undefined;
  return { host, name, file: `${host}/${file}`, ...(files ? { files } : {}) };
}

/** Two manifest file names in the code-point order of their package names (the extension left out). */
function compareManifestFiles(a: string, b: string): number {
  const [aLength, bLength] = [a.length - MANIFEST_EXTENSION.length, b.length - MANIFEST_EXTENSION.length];
  const shorter = Math.min(aLength, bLength);
  for (let i = 0; i < shorter; i++) {
    const difference = a.charCodeAt(i) - b.charCodeAt(i);
    if (difference !== 0) return difference;
  }
  return aLength - bLength;
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
  const manifests = new ManifestList();
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
    const files: string[] = [];
    // A zip or folder is a package's files only beside its manifest: the candidates are few, so
    // they are kept until every manifest of the host was seen.
    const candidates = new Map<string, "zip" | "folder">();
    let newNames = false;
    for (const entry of entries) {
      const file = `${host}/${entry.name}`;
      const packageFiles = packageFilesEntry(entry);
      if (packageFiles) {
        // Both a zip and a folder is findPackageFiles' PACKAGE_FILES_TWICE, at load.
        if (!candidates.has(packageFiles.name) || packageFiles.kind === "zip")
          candidates.set(packageFiles.name, packageFiles.kind);
        continue;
      }
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
            `is not a manifest: a host folder holds only <internal_name>${MANIFEST_EXTENSION} files and their package files (<internal_name>.zip or a folder <internal_name>/)`,
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
      files.push(entry.name);
    }
    const packageFiles = new Map<string, "zip" | "folder">();
    if (candidates.size > 0) {
      for (const file of files) {
        const name = file.slice(0, -MANIFEST_EXTENSION.length);
        const kind = candidates.get(name);
        if (kind !== undefined) packageFiles.set(name, kind);
      }
      for (const entry of entries) {
        const candidate = packageFilesEntry(entry);
        if (!candidate || packageFiles.has(candidate.name)) continue;
        const file = `${host}/${entry.name}`;
        add(
          candidate.kind === "folder" ? `${file}/` : file,
          finding(
            "PACKAGE_FILES_WITHOUT_MANIFEST",
            "",
            `holds a package's files, but there is no manifest ${host}/${candidate.name}${MANIFEST_EXTENSION} beside it`,
          ),
        );
      }
    }
    manifests.addHost(host, files, packageFiles);
    if (newNames) addCaseCollisions(host, files, add);
  });
  const stats = rootKinds.get(STATS_FOLDER) === "directory" ? validateStatsLayout(listing, hosts, add) : [];
  return { manifests, stats, problems };
}

/**
 * A package's files as a host folder lists them: `<name>.zip` (a regular file) or a folder `<name>/`
 * (../packageFiles/findPackageFiles.ts reads them). Names that cannot be a package's are not files.
 */
function packageFilesEntry(entry: {
  name: string;
  kind: string;
}): { name: string; kind: "zip" | "folder" } | undefined {
  if (entry.kind === "file" && entry.name.endsWith(".zip") && isValidName(entry.name.slice(0, -4)))
    return { name: entry.name.slice(0, -4), kind: "zip" };
  if (entry.kind === "directory" && isValidName(entry.name)) return { name: entry.name, kind: "folder" };
  return undefined;
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
function addCaseCollisions(host: string, files: readonly string[], add: (file: string, f: Finding) => void): void {
  // A name that folds to itself collides only with one that does not: those are few (often none), so
  // only they are folded into a set, and the rest are looked up in it.
  const folding = new Map<string, number>();
  for (const file of files) {
    const folded = foldCase(file);
    if (folded !== file) folding.set(folded, (folding.get(folded) ?? 0) + 1);
  }
  if (folding.size === 0) return;
  for (const file of files) if (folding.has(file)) folding.set(file, folding.get(file)! + 1);
  const byFolded = new Map<string, string[]>();
  for (const file of files) {
    const folded = foldCase(file);
    if ((folding.get(folded) ?? 0) < 2) continue;
    const name = file.slice(0, -MANIFEST_EXTENSION.length);
    const same = byFolded.get(folded);
    if (same) same.push(name);
    else byFolded.set(folded, [name]);
  }
  for (const same of byFolded.values()) {
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
