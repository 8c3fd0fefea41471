// Problems are data: every check returns them, the CLI formats and prints them.
import { compareCodePoints } from "../util/codePoints.js";

/**
 * An error fails the command; a warning is for the maintainer to fix (an error with --strict); a
 * notice says what the build did that nobody can change (--strict leaves it a notice).
 */
export type Severity = "error" | "warning" | "notice";

/** Every problem code, with what it means. The README's table is checked against this list. */
export const PROBLEM_CODES = {
  EMPTY_FILE: "the file is empty or holds only white space",
  INVALID_UTF8: "the file is not valid UTF-8",
  FILE_TOO_LARGE: "the file is larger than its kind can be (1 MiB for a manifest, 256 MiB for a stats file)",
  JSON_SYNTAX: "the file is not valid JSON (with line and column)",
  DUPLICATE_KEY: "one object names the same key twice",
  BYTE_ORDER_MARK: "the file starts with a UTF-8 byte order mark, which is ignored (warning)",
  WRONG_TYPE: "a value has the wrong JSON type",
  MISSING_FIELD: "a required field is missing",
  UNKNOWN_FIELD: "a field that the schema does not define",
  NOT_ALLOWED: "a value outside the allowed set",
  OUT_OF_RANGE: "a number below its minimum or above its maximum",
  BAD_LENGTH: "a string or list that is too short or too long",
  BAD_FORMAT: "a string that does not have the required form",
  INVALID_NAME: "a package name or host id that breaks the name rule",
  RESERVED_NAME: "a name that is a Windows device name (con, nul, com1, ...)",
  NAME_MISMATCH: "internal_name differs from the manifest's file name",
  CASE_COLLISION: "two names of one host that differ only in case",
  UPDATED_BEFORE_RELEASE: "updated is earlier than release_date (warning)",
  REPEATED_VALUE: "a list that holds a value more often than allowed (twice, or a fifth wii_remote)",
  PERIPHERALS_MISMATCH:
    "peripherals and controllers name different things (warning: v3/v4 say peripherals, v1/v2 and the Homebrew Browser controllers)",
  DUPLICATE_HOST: "hosts.json declares a host id twice (ignoring case)",
  RESERVED_HOST_ID: "a host id that the API's paths reserve (hosts)",
  UNKNOWN_DEFAULT_HOST: "hosts.json's default is not a declared host",
  MISSING_HOSTS_FILE: "the catalogue has no hosts.json",
  MISSING_HOST_FOLDER: "a declared host has no folder",
  UNDECLARED_HOST_FOLDER: "a folder of the catalogue is not a declared host",
  NOT_A_FOLDER: "a host's entry in the catalogue is not a folder",
  UNEXPECTED_ENTRY: "a file or folder where the catalogue expects none",
  IGNORED_FILE: "an editor's backup or temporary file in a host or stats folder (foo.json~, #foo.json#, .bak, .orig, .tmp), which is skipped (warning)",
  SYMLINK: "a symbolic link inside the catalogue (refused: it could point outside)",
  UNREADABLE: "a file or folder that could not be read",
  STATS_UNKNOWN_PACKAGE: "a stats entry for a package the host does not have (warning: stats outlive packages)",
  PACKAGE_FILES_WITHOUT_MANIFEST: "a <name>.zip or <name>/ folder in a host folder with no <name>.json beside it",
  PACKAGE_FILES_TWICE: "a package has both <name>.zip and a <name>/ folder beside its manifest",
  ZIP_INVALID: "a package archive that is not a zip file",
  ZIP_TRUNCATED: "a package archive that ends before its structure does (a cut download)",
  ZIP_CORRUPT: "an entry of a package archive whose data does not unpack to what its header declares",
  ZIP_UNSAFE_PATH: "an archive entry whose path leaves the SD card tree (`..`, absolute, a drive letter, a backslash, a control character)",
  ZIP_SYMLINK: "an archive entry that is a symbolic link",
  ZIP_CASE_COLLISION: "two archive paths that differ only in case (one overwrites the other on a FAT SD card)",
  ZIP_ENCRYPTED: "an encrypted archive entry",
  ZIP_UNSUPPORTED_COMPRESSION: "an archive entry compressed by a method other than stored or deflate",
  ZIP_FOLDER_ENTRY:
    "a package archive holding folder entries (apps/, apps/<name>/), which libreshop-client and the Wii's libfat-based extractors cannot install (warning)",
  EMPTY_FOLDER: "an empty folder in a package folder, left out of the archive, which holds files only (warning)",
  ZIP_BOMB: "an archive that unpacks beyond the limits (total, per entry with its ratio, entry count) or beyond its declared sizes",
  PACKAGE_NO_APP_FOLDER: "the package has no apps/<name>/ folder",
  PACKAGE_EXTRA_APP_FOLDER: "the package holds an apps/<other>/ folder for another name (warning)",
  PACKAGE_NO_BINARY: "apps/<name>/ holds no boot.dol or boot.elf",
  PACKAGE_TWO_BINARIES: "apps/<name>/ holds both boot.dol and boot.elf",
  PACKAGE_BAD_BINARY:
    "apps/<name>/boot.dol or boot.elf is empty (0 bytes) or is not a DOL or ELF by its header: the Homebrew Channel could not load it",
  PACKAGE_NO_META: "apps/<name>/ holds no meta.xml",
  META_UNREADABLE: "a meta.xml with no <app> element that any reader could find",
  META_BAD_DATE: "a meta.xml release_date that is not yyyyMMddHHmmss, yyyyMMddHHmm or yyyyMMdd (warning)",
  RELEASE_DATE_GUESSED:
    "a release_date that new --from or import apps guessed (meta.xml gives none that can be read), still as they wrote it: set the real one (warning)",
  META_MISMATCH: "meta.xml says otherwise than the manifest (display name, coder, version, descriptions) (warning)",
  ICON_NOT_PNG: "apps/<name>/icon.png is not a PNG image",
  ICON_WRONG_SIZE: "apps/<name>/icon.png is not 128x48 pixels (warning)",
  ICON_MISSING: "apps/<name>/ holds no icon.png; the placeholder icon is served (warning)",
  FILES_MISMATCH: "a manifest value that the package files contradict (zip_size, extracted, package_type)",
  HBB_VALUE_CUT:
    "a value cut to fit the Wii app's buffer in the Homebrew Browser's list or repository list (warning)",
  PLACEHOLDER_TEXT:
    "a manifest or hosts.json field still holding the placeholder text that init, new or an import wrote, which would be published (warning)",
  HBB_LEFT_OUT:
    "a package (or host) the Homebrew Browser's lists leave out: no package files, a category the Wii app does not know (warning), or a category's apps past what the Wii app holds (one warning on the host); the Homebrew Browser itself, which no list holds (notice)",
} as const;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export interface Problem {
  code: ProblemCode;
  severity: Severity;
  /** Path relative to the catalogue folder, `/`-separated; a folder ends in `/`. */
  file: string;
  /** JSON pointer into the file (RFC 6901); "" for the whole file. */
  pointer: string;
  message: string;
}

/** A problem before it is tied to a file. */
export type Finding = Omit<Problem, "file">;

export function finding(code: ProblemCode, pointer: string, message: string, severity: Severity = "error"): Finding {
  return { code, severity, pointer, message };
}

export function inFile(file: string, findings: readonly Finding[]): Problem[] {
  return findings.map((f) => ({ file, ...f }));
}

export function isError(problem: Pick<Problem, "severity">): boolean {
  return problem.severity === "error";
}

/**
 * The problems as `--strict` judges them: every warning an error, so that the one rule "an error
 * fails the command and a build writes nothing" holds for both, and the CLI's exit code follows.
 */
export function applyStrict(problems: readonly Problem[], strict: boolean | undefined): Problem[] {
  return strict ? problems.map((p) => (p.severity === "warning" ? { ...p, severity: "error" } : p)) : [...problems];
}

/** JSON pointer token for a key (RFC 6901: `~` becomes `~0`, `/` becomes `~1`). */
export function pointerToken(key: string | number): string {
  return String(key).replaceAll("~", "~0").replaceAll("/", "~1");
}


/** Stable order for reports: by file, then pointer, then code. */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) => compareCodePoints(a.file, b.file) || compareCodePoints(a.pointer, b.pointer) || compareCodePoints(a.code, b.code),
  );
}
