// Over 350 lines: the Homebrew Browser's list format, its cuts and its icon archive, which one client's
// parser reads together.
// The Homebrew Browser's surface (routes/hbbRoutes.ts): the repository list, each host's list
// (listv036.txt) and icon archive, and the stubs. Pure but for the icon archive: its icons are read
// and it is written into a work folder, one icon at a time, to be moved into the output. The list is
// written as the Open Shop Channel's server writes it (docs/hbb-list-format.md), every value cut to
// the Wii app's buffers (OpenShopChannel/OSCHomebrewBrowser source/common.h, common.c), which it
// copies into without a bound: a value over its buffer would overrun the console's memory.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { HostInfo, Package } from "../catalogue/fields.js";
import type { Problem } from "../catalogue/problems.js";
import { writeZipFile, type ZipEntry } from "../packageFiles/zipStream.js";
import { HBB_FOLDER, HBB_HOST_FILES, HBB_STUBS } from "../routes/hbbRoutes.js";
import { packageFilesPrefix } from "../routes/packageFileLayout.js";
import { compareCodePoints } from "../util/codePoints.js";
import type { OutputFile, PackageFilesInfo, RenderedPackage } from "./renderApi.js";

/**
 * What the Wii app holds, in bytes with the terminating NUL (source/common.h's homebrew_struct and
 * repo_struct; common.c's request_list). A value longer than its buffer less one is cut.
 */
export const HBB_LIMITS = {
  /** fgets reads at most this many bytes less one a line: a longer line would be read as two. */
  line: 2000,
  name: 100,
  displayName: 100,
  coder: 100,
  version: 20,
  shortDescription: 100,
  longDescription: 500,
  controllers: 20,
  downloads: 10,
  /** The folder list; each folder is also appended to `usb:` in a 150-byte buffer, and at most 150 are kept. */
  folders: 1000,
  folder: 146,
  folderCount: 150,
  /** repo_struct, and repo_list[200]. */
  repositories: 200,
  repositoryName: 200,
  domain: 100,
  listFile: 200,
  appsFolder: 100,
} as const;

/**
 * The categories the app knows, by the footer that closes each (its only way to tell them), in the
 * order the Open Shop Channel writes them, and how many apps a list gives each: what the app's array
 * holds (common.c: demos_list[300], games_list[600], ...), and never over the 400 a category the Open
 * Shop Channel says the app keeps. Every category's apps are also copied into total_list[600].
 */
export const HBB_CATEGORIES = [
  { category: "demos", footer: "=Demos=", capacity: 300 },
  { category: "emulators", footer: "=Emulators=", capacity: 300 },
  { category: "games", footer: "=Games=", capacity: 400 },
  { category: "media", footer: "=Media=", capacity: 300 },
  { category: "utilities", footer: "=Utilities=", capacity: 300 },
] as const;

/** How many apps of all categories the app holds at once (total_list[600]). */
export const HBB_TOTAL_CAPACITY = 600;

/**
 * The Open Shop Channel's header line: `Homebrew`, the size of the browser's own boot.dol (the app
 * updates itself when its size differs, so this is the size of the release it serves), and the
 * update notes.
 */
export const HBB_HEADER =
  "Homebrew 2092896 v0.3.9e | - Updated with latest libogc which should correct network issues some users are experiencing";

/** The browser itself, which the Open Shop Channel leaves out of its list: it updates itself by the header. */
const BROWSER_NAME = "homebrew_browser";

const CRLF = "\r\n";

/** One app of a list, every value as it is written (cut already). */
export interface HbbEntry {
  name: string;
  category: string;
  /** The tokens after the name, up to the two flags, and the six text lines. */
  tokens: string[];
  lines: [string, string, string, string, string, string];
}

interface Cut {
  text: string;
  cut: boolean;
}

/** `text` cut to at most `bytes` bytes of UTF-8, never inside a character. */
export function cutUtf8(text: string, bytes: number): Cut {
  const encoded = Buffer.from(text, "utf8");
  if (encoded.length <= bytes) return { text, cut: false };
  let end = bytes;
  // A continuation byte (10xxxxxx) cannot start a character: back off to the character's first byte.
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return { text: encoded.subarray(0, end).toString("utf8"), cut: true };
}

/** Every line break as a space: one value is one line of the list. */
function oneLine(text: string): string {
  return text.replace(/\r\n|[\r\n\u0085\u2028\u2029]/g, " ");
}

function isBlank(text: string): boolean {
  return text.trim() === "";
}

/** The first `count` characters (code points) of `text`. */
function firstCharacters(text: string, count: number): string {
  return [...text].slice(0, count).join("");
}

/**
 * The folders the app creates before it unpacks (the package's folders under apps/<name>/, as the
 * Open Shop Channel lists them), each followed by `;`: those the app can read (no space, `;` or
 * byte beyond ASCII, which the token line cannot carry) and hold, in order, while they fit.
 */
function folderList(folders: readonly string[]): Cut {
  let list = "";
  let count = 0;
  let cut = false;
  for (const folder of folders) {
    const fits =
      /^[\x21-\x3a\x3c-\x7e]+$/.test(folder) &&
      folder.length < HBB_LIMITS.folder &&
      count < HBB_LIMITS.folderCount &&
      list.length + folder.length + 1 < HBB_LIMITS.folders;
    if (!fits) {
      cut = true;
      continue;
    }
    list += `${folder};`;
    count++;
  }
  return { text: list === "" ? "." : list, cut };
}

/** What a list is made from, for one package: its object as the API serves it and what its files derive. */
export interface HbbSource {
  name: string;
  pkg: Package;
  files?: PackageFilesInfo | undefined;
  /** The package has the flag writes_to_nand: its long description says so first. */
  writesToNand?: boolean;
}

/** What the Open Shop Channel writes before the long description of an app that writes to the console's NAND. */
export const NAND_CAUTION = "[CAUTION! Writes to NAND!] ";

/** A rendered package as a list's source. */
export function hbbSourceOf(p: Pick<RenderedPackage, "name" | "json" | "files" | "today">): HbbSource {
  return {
    name: p.name,
    pkg: JSON.parse(p.json) as Package,
    files: p.files,
    writesToNand: p.today.flags.includes("writes_to_nand"),
  };
}

/** Whether a package of a host can be in its list, or why not. */
function leftOutReason(p: HbbSource, category: string): string | undefined {
  if (p.name === BROWSER_NAME) return "it is the Homebrew Browser itself, which updates itself by the list's header";
  if (!p.files) return "it has no package files beside its manifest, so the Wii app would have nothing to download";
  if (!HBB_CATEGORIES.some((c) => c.category === category))
    return `its category ${category} is none of the five the Wii app knows (${HBB_CATEGORIES.map((c) => c.category).join(", ")})`;
  return undefined;
}

function warning(code: Problem["code"], file: string, pointer: string, message: string): Problem {
  return { code, severity: "warning", file, pointer, message };
}

/** One package as a list entry, with a warning for each value cut. */
export function hbbEntry(host: string, p: HbbSource, pkg: Package): { entry: HbbEntry; problems: Problem[] } {
  const files = p.files!;
  const file = `${host}/${p.name}.json`;
  const problems: Problem[] = [];
  const fit = (value: string, limit: number, pointer: string, what: string): string => {
    const result = cutUtf8(value, limit - 1);
    if (result.cut)
      problems.push(
        warning(
          "HBB_VALUE_CUT",
          file,
          pointer,
          `${what} is cut to ${limit - 1} bytes in the Homebrew Browser's list (the Wii app's buffer holds ${limit} with its NUL)`,
        ),
      );
    return result.text;
  };
  const short = isBlank(pkg.short_description) ? "No description provided." : oneLine(pkg.short_description);
  // As the Open Shop Channel writes it: one line of at most 128 characters and "...", the short description
  // when empty, after a caution for an app that writes to the NAND.
  let long = short;
  if (!isBlank(pkg.long_description)) {
    const text = oneLine(pkg.long_description);
    long = [...text].length > 128 ? `${firstCharacters(text, 128)}...` : text;
  }
  if (p.writesToNand === true) long = `${NAND_CAUTION}${long}`;
  const folders = folderList(files.subdirectories);
  if (folders.cut)
    problems.push(
      warning(
        "HBB_VALUE_CUT",
        file,
        "",
        `the folders to create leave out those the Homebrew Browser's list cannot carry (a space, ';' or a character beyond ASCII; over ${HBB_LIMITS.folder - 1} bytes; past ${HBB_LIMITS.folderCount} folders or ${HBB_LIMITS.folders - 1} bytes in all)`,
      ),
    );
  const maxDownloads = 10 ** (HBB_LIMITS.downloads - 1) - 1;
  if (pkg.downloads > maxDownloads)
    problems.push(
      warning("HBB_VALUE_CUT", file, "", `downloads are written ${maxDownloads}, the most the Wii app's buffer holds`),
    );
  const entry: HbbEntry = {
    name: fit(p.name, HBB_LIMITS.name, "/internal_name", "internal_name"),
    category: pkg.category,
    tokens: [
      String(pkg.release_date),
      String(files.iconSize),
      String(files.binarySize),
      pkg.package_type,
      String(files.zipSize),
      String(Math.min(pkg.downloads, maxDownloads)),
      "0",
      fit(pkg.controllers, HBB_LIMITS.controllers, "/controllers", "controllers") || ".",
      folders.text,
    ],
    lines: [
      fit(oneLine(pkg.display_name), HBB_LIMITS.displayName, "/display_name", "display_name"),
      fit(oneLine(pkg.coder), HBB_LIMITS.coder, "/coder", "coder"),
      fit(oneLine(pkg.version), HBB_LIMITS.version, "/version", "version"),
      String(pkg.extracted),
      fit(short, HBB_LIMITS.shortDescription, "/short_description", "short_description"),
      fit(long, HBB_LIMITS.longDescription, "/long_description", "long_description"),
    ],
  };
  return { entry, problems };
}

/** A package that can be in its host's list: its name, category and downloads, and its entry once made. */
export interface HbbCandidate {
  name: string;
  category: string;
  downloads: number;
  entry?: HbbEntry;
}

/**
 * A package in its host's list: when it can be in it, its candidacy and a warning for each value the
 * list cuts; else the warning that says why it cannot, whatever the other packages are. Whether a
 * candidate is kept is the list's to say (HbbPicks), by its downloads.
 */
export function hbbPackage(host: string, p: HbbSource): { candidate?: HbbCandidate; problems: Problem[] } {
  const pkg = p.pkg;
  const reason = leftOutReason(p, pkg.category);
  if (reason !== undefined) {
    const left = warning(
      "HBB_LEFT_OUT",
      `${host}/${p.name}.json`,
      "",
      `the Homebrew Browser's list leaves it out: ${reason}`,
    );
    // Nobody can put the Homebrew Browser in its own list: a notice, which --strict does not fail on.
    return { problems: [p.name === BROWSER_NAME ? { ...left, severity: "notice" } : left] };
  }
  const made = hbbEntry(host, p, pkg);
  return {
    candidate: { name: p.name, category: pkg.category, downloads: pkg.downloads, entry: made.entry },
    problems: made.problems,
  };
}

/**
 * Whether a package of a host, which has package files, can be in the host's list by what the index
 * records of it (its name and category): as hbbPackage judges it.
 */
export function isHbbCandidate(name: string, category: string): boolean {
  return name !== BROWSER_NAME && HBB_CATEGORIES.some((c) => c.category === category);
}

/** Whether candidate `a` ranks before `b` in the list: downloaded more, then by name. */
function ranksBefore(a: HbbCandidate, b: HbbCandidate): boolean {
  return a.downloads !== b.downloads ? a.downloads > b.downloads : compareCodePoints(a.name, b.name) < 0;
}

/**
 * The apps a host's list keeps, told each candidate once in any order and holding no more than the
 * Wii app's arrays: past a category's capacity or the whole list's, the most downloaded stay (then by
 * name). Each category keeps its best `capacity` in a heap (the worst on top); the list is the best
 * 600 of those, for a candidate outside its category's best never gets in (its category is full of
 * better ones before it comes).
 */
export class HbbPicks {
  readonly #heaps = new Map<string, HbbCandidate[]>(HBB_CATEGORIES.map((c) => [c.category, []]));
  readonly #counts = new Map<string, number>();

  add(candidate: HbbCandidate): void {
    const { category } = candidate;
    const heap = this.#heaps.get(category)!;
    this.#counts.set(category, (this.#counts.get(category) ?? 0) + 1);
    if (heap.length < capacityOf(category)) {
      heap.push(candidate);
      siftUp(heap, heap.length - 1);
    } else if (ranksBefore(candidate, heap[0]!)) {
      heap[0] = candidate;
      siftDown(heap, 0);
    }
  }

  /**
   * The kept apps' entries in the list's order (by category, then name), those not yet made made by
   * `entryOf`, and a warning for each category that lost apps.
   */
  result(host: string, entryOf: (name: string) => HbbEntry): { entries: HbbEntry[]; problems: Problem[] } {
    const best = [...this.#heaps.values()].flat().sort((a, b) => (ranksBefore(a, b) ? -1 : 1));
    const kept = best.slice(0, HBB_TOTAL_CAPACITY);
    const problems: Problem[] = [];
    for (const { category, capacity } of HBB_CATEGORIES) {
      const ofCategory = kept.filter((c) => c.category === category);
      const left = (this.#counts.get(category) ?? 0) - ofCategory.length;
      if (left === 0) continue;
      const least = ofCategory.at(-1);
      problems.push(
        warning(
          "HBB_LEFT_OUT",
          host,
          "",
          `the Homebrew Browser's list leaves out ${left} of the ${this.#counts.get(category)} apps in ${category}: the Wii app holds ${capacity} in ${category} and ${HBB_TOTAL_CAPACITY} in all, and keeps those downloaded most (${least ? `the least of those kept has ${least.downloads} downloads` : "the list is full"})`,
        ),
      );
    }
    const order = new Map<string, number>(HBB_CATEGORIES.map((c, i) => [c.category, i]));
    kept.sort((a, b) => order.get(a.category)! - order.get(b.category)! || compareCodePoints(a.name, b.name));
    return { entries: kept.map((c) => c.entry ?? entryOf(c.name)), problems };
  }
}

function capacityOf(category: string): number {
  return HBB_CATEGORIES.find((c) => c.category === category)!.capacity;
}

/** Restores the heap (the candidate ranking last on top) above `i`. */
function siftUp(heap: HbbCandidate[], i: number): void {
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!ranksBefore(heap[parent]!, heap[i]!)) return;
    [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
    i = parent;
  }
}

/** Restores the heap below `i`. */
function siftDown(heap: HbbCandidate[], i: number): void {
  for (;;) {
    let worst = i;
    for (const child of [2 * i + 1, 2 * i + 2])
      if (child < heap.length && ranksBefore(heap[worst]!, heap[child]!)) worst = child;
    if (worst === i) return;
    [heap[worst], heap[i]] = [heap[i]!, heap[worst]!];
    i = worst;
  }
}

/**
 * Every host's list, told each package once as it passes, in any order, and holding of it only what
 * its picks keep: its own warnings (a value cut, why it cannot be in the list) at once, and its
 * candidacy. The full build (engine/streamPackageFiles.ts) and `validate` take the lists from it.
 */
export class HbbLists {
  readonly #picks = new Map<string, HbbPicks>();
  /** The packages' own warnings, in the order they passed. */
  readonly problems: Problem[] = [];

  add(host: string, p: HbbSource): void {
    const own = hbbPackage(host, p);
    this.problems.push(...own.problems);
    if (own.candidate) this.#picksOf(host).add(own.candidate);
  }

  /**
   * A rebuild's kept package, by what the index records of it (its name, category and downloads):
   * a candidate whose entry is made only if the list keeps it; its own warnings are the last build's.
   */
  keep(host: string, candidate: HbbCandidate): void {
    this.#picksOf(host).add(candidate);
  }

  /**
   * A host's list: its entries by category (a kept candidate's made by `entryOf`), and a warning for
   * each category that lost apps.
   */
  result(host: string, entryOf?: (name: string) => HbbEntry): { entries: HbbEntry[]; problems: Problem[] } {
    return this.#picksOf(host).result(
      host,
      entryOf ??
        ((name) => {
          throw new Error(`internal: ${host}/${name} has no entry`);
        }),
    );
  }

  /**
   * Every list once every package has passed: the repository list's text, each host's entries, and
   * every warning of them (the packages' own, the repository list's, each category that lost apps),
   * as `build` and `validate` both report them.
   */
  finish(
    hosts: readonly HostInfo[],
    defaultHost: string,
  ): { repoList: string; hosts: { id: string; entries: HbbEntry[] }[]; problems: Problem[] } {
    const repoList = renderRepoList(hosts, defaultHost);
    const problems = [...this.problems, ...repoList.problems];
    const lists = hosts.map(({ id }) => {
      const list = this.result(id);
      problems.push(...list.problems);
      return { id, entries: list.entries };
    });
    return { repoList: repoList.text, hosts: lists, problems };
  }

  /** A host's picks, made on first use (a host without packages has an empty list). */
  #picksOf(host: string): HbbPicks {
    let picks = this.#picks.get(host);
    if (!picks) this.#picks.set(host, (picks = new HbbPicks()));
    return picks;
  }
}

/** The list's text: the header, then each category's apps and its footer, CRLF after every line. */
export function renderHbbList(entries: readonly HbbEntry[]): string {
  const lines = [HBB_HEADER];
  for (const { category, footer } of HBB_CATEGORIES) {
    for (const entry of entries) {
      if (entry.category !== category) continue;
      lines.push([entry.name, ...entry.tokens, ".", "."].join(" "), ...entry.lines);
    }
    lines.push(footer);
  }
  return lines.map((line) => `${line}${CRLF}`).join("");
}

/** Where a host's surface is, as the repository list names it. */
export function hbbFolderOf(host: string, defaultHost: string): { list: string; apps: string } {
  const prefix = packageFilesPrefix(host, defaultHost);
  return { list: `/${prefix}${HBB_HOST_FILES.list}`, apps: `/${prefix}${HBB_FOLDER}` };
}

/**
 * The repository list: `1`, then each host (the default first, as the app's repository 0) by its
 * display name, its domain (hosts.json's `host`), its list and its folder.
 */
export function renderRepoList(hosts: readonly HostInfo[], defaultHost: string): { text: string; problems: Problem[] } {
  const problems: Problem[] = [];
  const ordered = [...hosts.filter((h) => h.id === defaultHost), ...hosts.filter((h) => h.id !== defaultHost)];
  const lines = ["1"];
  for (const host of ordered) {
    const pointer = `/hosts/${hosts.indexOf(host)}`;
    if (Buffer.byteLength(host.host) >= HBB_LIMITS.domain || lines.length > HBB_LIMITS.repositories * 4) {
      problems.push(
        warning(
          "HBB_LEFT_OUT",
          "hosts.json",
          `${pointer}/host`,
          `the Homebrew Browser's repository list leaves host ${host.id} out: the Wii app holds ${HBB_LIMITS.repositories} repositories and domains of up to ${HBB_LIMITS.domain - 1} bytes`,
        ),
      );
      continue;
    }
    const name = cutUtf8(oneLine(host.name), HBB_LIMITS.repositoryName - 1);
    if (name.cut)
      problems.push(
        warning(
          "HBB_VALUE_CUT",
          "hosts.json",
          `${pointer}/name`,
          `the name is cut to ${HBB_LIMITS.repositoryName - 1} bytes in the Homebrew Browser's repository list`,
        ),
      );
    const folder = hbbFolderOf(host.id, defaultHost);
    lines.push(name.text, host.host, folder.list, folder.apps);
  }
  return { text: lines.map((line) => `${line}${CRLF}`).join(""), problems };
}

/** A package's icon as served (its own or the placeholder), undefined for a package without files. */
export type IconBytes = (name: string) => Uint8Array | undefined;

/**
 * Writes every icon of a host's packages with files, as `<name>.png` at the root in code-point order,
 * into a zip at `path`, reading one icon at a time: a host of many packages has an archive larger
 * than is worth holding, of more entries than a classic zip records (zipStream.ts).
 */
function writeIconsZip(path: string, names: readonly string[], iconOf: IconBytes): { size: number; sha256: string } {
  const entries = names.map((name) => ({ name, entry: `${name}.png` }));
  entries.sort((a, b) => compareCodePoints(a.entry, b.entry));
  function* icons(): Generator<ZipEntry> {
    for (const { name, entry } of entries) {
      const bytes = iconOf(name);
      if (bytes !== undefined) yield { name: entry, bytes };
    }
  }
  return writeZipFile(path, icons());
}

/**
 * A host's list (both its paths) of `entries` (HbbLists', or HbbPicks'), and its icon archive of
 * the packages `icons` names: the same whether a full build or a rebuild (engine/streamPackageFiles.ts's surface) makes
 * them. The archive is written into `workDir` (on the output's file system) and moved into the
 * output from there.
 */
export function renderHbbHost(
  host: string,
  defaultHost: string,
  list: { entries: readonly HbbEntry[]; icons: readonly string[] },
  iconOf: IconBytes,
  workDir: string,
): OutputFile[] {
  const prefix = packageFilesPrefix(host, defaultHost);
  const text = latin1(Buffer.from(renderHbbList(list.entries), "utf8"));
  mkdirSync(workDir, { recursive: true });
  const icons = join(workDir, `${host}.temp_files.zip`);
  const digest = writeIconsZip(icons, list.icons, iconOf);
  return [
    { path: `${prefix}${HBB_HOST_FILES.list}`, content: text },
    { path: `${prefix}${HBB_HOST_FILES.shortList}`, content: text },
    { path: `${prefix}${HBB_HOST_FILES.icons}`, content: { file: icons, move: true, digest } },
  ];
}

/** The stubs' files: at the root, whatever the hosts. */
export function hbbStubFiles(): OutputFile[] {
  return Object.entries(HBB_STUBS).map(([path, body]) => ({ path, content: body }));
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}
