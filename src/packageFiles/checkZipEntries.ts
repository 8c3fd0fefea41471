// Pure checks of a package archive's central directory: every entry is judged on what it declares,
// before a byte of it is unpacked, and the package's layout (apps/<name>/ and what it holds) is found.
import { finding, type Finding, type ProblemCode, type Severity } from "../catalogue/problems.js";
import type { ZipLimits } from "./zipLimits.js";
import { compareCodePoints } from "../util/codePoints.js";

/** One entry of the central directory, as the reader declares it. */
export interface ZipEntryInfo {
  /** The path as stored (UTF-8 or CP437), with any backslash kept. A folder ends in `/`. */
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  /** 0 stored, 8 deflate; anything else is refused. */
  compressionMethod: number;
  /** General purpose flag bit 0 (or bit 6, strong encryption). */
  encrypted: boolean;
  /** The upper 16 bits of the external attributes: a Unix mode where the archiver wrote one, else 0. */
  unixMode: number;
}

/** A finding about a package's files; `entry` names the archive path it is about, if any. */
export type PackageFinding = Finding & { entry?: string };

export function packageFinding(
  code: ProblemCode,
  message: string,
  entry?: string,
  severity: Severity = "error",
): PackageFinding {
  return entry === undefined
    ? finding(code, "", message, severity)
    : { ...finding(code, "", message, severity), entry };
}

/** Where the parts of a package sit in its archive (entry names as stored). */
export interface PackageLayout {
  /** `apps/<name>/` as the archive spells it. */
  appFolder: string;
  binary?: { entry: string; type: "dol" | "elf" };
  meta?: string;
  icon?: string;
  /** Bytes of the files under apps/<name>/ (declared sizes; each is verified while unpacking). */
  extracted: number;
  /** Every folder under apps/<name>/, written `/apps/<name>/<sub>`, sorted. */
  subdirectories: string[];
  /** Folders at the archive's root besides `apps`, sorted (the Homebrew Browser's folder list). */
  rootFolders: string[];
}

export interface EntryCheck {
  findings: PackageFinding[];
  layout?: PackageLayout;
  /** Indexes of the entries safe to unpack (to verify their sizes and read the package's parts). */
  unpack: number[];
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** Why a path would leave the SD card tree, or undefined when it stays inside. */
export function unsafePathReason(name: string): string | undefined {
  if (name.includes("\\")) return "holds a backslash";
  if (/^[a-zA-Z]:/.test(name)) return "starts with a drive letter";
  if (name.startsWith("/")) return "is absolute";
  if (/[\u0000-\u001f\u007f]/.test(name)) return "holds a control character";
  const segments = name.replace(/\/$/, "").split("/");
  if (segments.includes("..")) return "climbs out with ..";
  if (segments.some((s) => s === "" || s === ".")) return "has an empty or . segment";
  return undefined;
}

function checkLimits(entries: readonly ZipEntryInfo[], limits: ZipLimits, findings: PackageFinding[]): Set<number> {
  const bombs = new Set<number>();
  if (entries.length > limits.maxEntries) {
    findings.push(packageFinding("ZIP_BOMB", `${entries.length} entries, more than the limit of ${limits.maxEntries}`));
    entries.forEach((_, i) => bombs.add(i));
  }
  const total = entries.reduce((sum, e) => sum + e.uncompressedSize, 0);
  if (total > limits.maxTotalUnpacked) {
    findings.push(
      packageFinding("ZIP_BOMB", `unpacks to ${total} bytes, more than the limit of ${limits.maxTotalUnpacked}`),
    );
    entries.forEach((_, i) => bombs.add(i));
  }
  entries.forEach((e, i) => {
    if (e.uncompressedSize <= limits.maxEntryUnpacked) return;
    const ratio = e.compressedSize === 0 ? Infinity : e.uncompressedSize / e.compressedSize;
    if (ratio <= limits.maxRatio) return;
    findings.push(
      packageFinding(
        "ZIP_BOMB",
        `${e.name}: ${e.compressedSize} bytes unpack to ${e.uncompressedSize} (more than ${limits.maxRatio}:1 above ${limits.maxEntryUnpacked} bytes)`,
        e.name,
      ),
    );
    bombs.add(i);
  });
  return bombs;
}

/** Folder paths (without trailing `/`) of the entries: explicit folder entries and every file's parents. */
function folderPaths(names: readonly string[]): Set<string> {
  const folders = new Set<string>();
  for (const name of names) {
    const segments = name.replace(/\/$/, "").split("/");
    const parents = name.endsWith("/") ? segments.length : segments.length - 1;
    for (let i = 1; i <= parents; i++) folders.add(segments.slice(0, i).join("/"));
  }
  return folders;
}

/** The clients that stop at an archive's folder entry, named in its warning. */
export const FOLDER_ENTRY_CLIENTS = "libreshop-client and the Wii's libfat-based extractors";

function checkFolderEntries(entries: readonly ZipEntryInfo[], findings: PackageFinding[]): void {
  const folders = entries.filter((e) => e.name.endsWith("/")).map((e) => e.name);
  if (folders.length === 0) return;
  const shown = folders.slice(0, 3).join(", ") + (folders.length > 3 ? `, ... (${folders.length} in all)` : "");
  findings.push(
    packageFinding(
      "ZIP_FOLDER_ENTRY",
      `the archive holds folder entries (${shown}): ${FOLDER_ENTRY_CLIENTS} open every entry as a file and install nothing; zip it with files only (Info-ZIP: zip -r -D) or keep the package as a folder, which the build zips with files only`,
      undefined,
      "warning",
    ),
  );
}

function checkCaseCollisions(names: readonly string[], findings: PackageFinding[]): void {
  const seen = new Map<string, string>();
  const paths = [...names.map((n) => n.replace(/\/$/, "")), ...folderPaths(names)];
  const reported = new Set<string>();
  const exact = new Set<string>();
  for (const name of names) {
    if (exact.has(name) && !reported.has(name.toLowerCase())) {
      reported.add(name.toLowerCase());
      findings.push(packageFinding("ZIP_CASE_COLLISION", `${name} is in the archive twice`, name));
    }
    exact.add(name);
  }
  for (const path of paths) {
    const key = path.toLowerCase();
    const first = seen.get(key);
    if (first === undefined) seen.set(key, path);
    else if (first !== path && !reported.has(key)) {
      reported.add(key);
      const [a, b] = [first, path].sort(compareCodePoints) as [string, string];
      findings.push(packageFinding("ZIP_CASE_COLLISION", `${a} and ${b} differ only in case`, b));
    }
  }
}

function findLayout(names: readonly string[], name: string, findings: PackageFinding[]): PackageLayout | undefined {
  const lower = name.toLowerCase();
  const folders = folderPaths(names);
  const appFolders = [...folders].filter((f) => /^apps\/[^/]+$/i.test(f)).sort(compareCodePoints);
  // A FAT SD card ignores case, and so does the Homebrew Channel: Apps/Snake/ is apps/snake/.
  const own = appFolders.find((f) => f.slice(5).toLowerCase() === lower);
  for (const other of appFolders) {
    if (other === own) continue;
    if (own !== undefined) {
      findings.push(
        packageFinding(
          "PACKAGE_EXTRA_APP_FOLDER",
          `${other}/ is a second application besides ${own}/`,
          `${other}/`,
          "warning",
        ),
      );
    }
  }
  if (own === undefined) {
    const nested = [...folders].find((f) => f.toLowerCase().endsWith(`/apps/${lower}`));
    const hint =
      appFolders.length > 0
        ? ` (it has ${appFolders.map((f) => `${f}/`).join(", ")})`
        : nested !== undefined
          ? ` (${nested}/ is inside a folder: zip the SD card's root, not a folder holding it)`
          : "";
    findings.push(packageFinding("PACKAGE_NO_APP_FOLDER", `the archive has no apps/${name}/ folder${hint}`));
    return undefined;
  }
  const prefix = `${own}/`;
  const layout: PackageLayout = {
    appFolder: prefix,
    extracted: 0,
    subdirectories: [...folders]
      .filter((f) => f.startsWith(prefix))
      .map((f) => `/apps/${name}/${f.slice(prefix.length)}`)
      .sort(compareCodePoints),
    rootFolders: [...new Set([...folders].map((f) => f.split("/")[0]!))]
      .filter((f) => f.toLowerCase() !== "apps")
      .sort(compareCodePoints),
  };
  const binaries: { entry: string; type: "dol" | "elf" }[] = [];
  for (const entry of names) {
    if (!entry.startsWith(prefix) || entry.endsWith("/")) continue;
    const rest = entry.slice(prefix.length);
    if (rest.includes("/")) continue;
    const file = rest.toLowerCase();
    if (file === "boot.dol" || file === "boot.elf") binaries.push({ entry, type: file === "boot.dol" ? "dol" : "elf" });
    else if (file === "meta.xml") layout.meta = entry;
    else if (file === "icon.png") layout.icon = entry;
  }
  if (binaries.length === 0) {
    findings.push(packageFinding("PACKAGE_NO_BINARY", `${prefix} holds no boot.dol or boot.elf`));
  } else if (binaries.length > 1) {
    findings.push(
      packageFinding(
        "PACKAGE_TWO_BINARIES",
        `${prefix} holds ${binaries.map((b) => b.entry.slice(prefix.length)).join(" and ")}: the Homebrew Channel would start only one`,
      ),
    );
  } else layout.binary = binaries[0]!;
  if (layout.meta === undefined) findings.push(packageFinding("PACKAGE_NO_META", `${prefix} holds no meta.xml`));
  if (layout.icon === undefined) {
    findings.push(
      packageFinding(
        "ICON_MISSING",
        `${prefix} holds no icon.png; the placeholder icon is served`,
        undefined,
        "warning",
      ),
    );
  }
  return layout;
}

/** Checks the declared entries of a package archive for the package `name`. */
export function checkZipEntries(entries: readonly ZipEntryInfo[], name: string, limits: ZipLimits): EntryCheck {
  const findings: PackageFinding[] = [];
  const bad = checkLimits(entries, limits, findings);
  const safeNames: string[] = [];
  const safe = new Set<number>();
  entries.forEach((e, i) => {
    const unsafe = unsafePathReason(e.name);
    if (unsafe !== undefined) {
      findings.push(packageFinding("ZIP_UNSAFE_PATH", `${JSON.stringify(e.name)} ${unsafe}`, e.name));
      bad.add(i);
      return;
    }
    if ((e.unixMode & S_IFMT) === S_IFLNK) {
      findings.push(packageFinding("ZIP_SYMLINK", `${e.name} is a symbolic link`, e.name));
      bad.add(i);
      return;
    }
    safeNames.push(e.name);
    safe.add(i);
    if (e.encrypted) {
      findings.push(packageFinding("ZIP_ENCRYPTED", `${e.name} is encrypted`, e.name));
      bad.add(i);
    }
    if (e.compressionMethod !== 0 && e.compressionMethod !== 8) {
      findings.push(
        packageFinding(
          "ZIP_UNSUPPORTED_COMPRESSION",
          `${e.name} uses compression method ${e.compressionMethod} (only stored and deflate are read)`,
          e.name,
        ),
      );
      bad.add(i);
    }
  });
  checkFolderEntries(entries, findings);
  checkCaseCollisions(safeNames, findings);
  const layout = findLayout(safeNames, name, findings);
  if (layout !== undefined) {
    layout.extracted = entries
      .filter((e, i) => safe.has(i) && e.name.startsWith(layout.appFolder) && !e.name.endsWith("/"))
      .reduce((sum, e) => sum + e.uncompressedSize, 0);
  }
  const unpack = entries.map((_, i) => i).filter((i) => !bad.has(i) && !entries[i]!.name.endsWith("/"));
  return layout === undefined ? { findings, unpack } : { findings, layout, unpack };
}
