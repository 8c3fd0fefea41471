// Over 300 lines: the load step with the package files part of it (find, check, derive, remember),
// which share one loop over the packages.
// The load step every command that reads a catalogue shares: read -> validate -> render. Each valid
// manifest is rendered as soon as it is validated and handed to the caller, so the catalogue is
// never held: each command keeps what it needs of a package as it passes.
import { createHash } from "node:crypto";
import { createReadStream, lstatSync, mkdtempSync, readdirSync, rmSync, statSync, type Stats } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import type { HostsFile, Manifest } from "../catalogue/fields.js";
import { mergeDerived } from "../packageFiles/mergeDerived.js";
import { PLACEHOLDER_ICON } from "../packageFiles/placeholderIcon.js";
import { findPackageFiles } from "../packageFiles/findPackageFiles.js";
import { readPackageFiles, zipContent } from "../packageFiles/readPackageFiles.js";
import { digestPackageFolder } from "../packageFiles/zipPackageFolder.js";
import { isError, sortProblems, type Problem } from "../catalogue/problems.js";
import { schemaValidators, type Validators } from "../catalogue/schemas.js";
import { folderSignatures, listCatalogue, readSourceFile } from "../read/readCatalogue.js";
import { signatureOf, type Signature } from "../read/signature.js";
import type { DerivedFiles } from "../packageFiles/inspectPackageZip.js";
import {
  FOLDER_ROW,
  renderPackage,
  type FileContent,
  type PackageFilesInfo,
  type PackageFilesMemo,
  type RenderedPackage,
  type StoredPackageFiles,
} from "../render/renderApi.js";
import {
  unknownStatsProblems,
  validateHostsFile,
  validateManifest,
  validateStatsFile,
  HOSTS_FILE,
  MANIFEST_EXTENSION,
  MAX_SOURCE_BYTES,
  MAX_STATS_BYTES,
  type ManifestRef,
} from "../validate/catalogueRules.js";
import { validateLayout } from "../validate/layoutRules.js";
import { namesOf, type CatalogueNames } from "../render/catalogueNames.js";
import type { PackageStats } from "../catalogue/fields.js";
import { hostStatsOf, type HostStats } from "../catalogue/statsFile.js";
import { compareCodePoints } from "../util/codePoints.js";
import { todayPackageOf } from "../render/renderToday.js";
import { checkMemory } from "../util/memory.js";

let placeholderSize: number | undefined;

/** Packages whose files are read at once (see loadCatalogue). */
const PACKAGES_AT_ONCE = Math.min(4, availableParallelism() + 1);

/** The placeholder icon's bytes, served for a package without an icon. */
function placeholderIconSize(): number {
  placeholderSize ??= statSync(PLACEHOLDER_ICON).size;
  return placeholderSize;
}

/** What a build remembers of a host's stats file. */
export interface StatsSource {
  /** The file's signature; null when the host has no stats file. */
  signature: Signature | null;
  /** Its entries for names the host has no package of, in name order. */
  orphans: [string, PackageStats][];
}

/** The signatures of the sources a catalogue was loaded from: what a rebuild compares them with. */
export interface CatalogueSources {
  hostsFile: Signature;
  /** The catalogue folder's and each host folder's signature as listed (see BuildState.folders). */
  folders: Signature[] | null;
  /** Per host, its stats file. */
  stats: ReadonlyMap<string, StatsSource>;
}

export interface LoadedCatalogue {
  /** Every problem found, errors and warnings, in a stable order. */
  problems: Problem[];
  /** Present only when there is no error (so every valid package was handed to onPackage). */
  sources?: CatalogueSources;
}

/** A valid manifest, rendered, and the signature of the source it was read from. */
export interface LoadedPackage {
  pkg: RenderedPackage;
  signature: Signature;
}

/**
 * What a build may reuse of the last build's package files: the memo of package `host/name`, whether
 * a file kept its signature (the racy-window rule of the manifests), and the live slot's folder.
 */
export interface PackageFilesReuse {
  memo(host: string, name: string): PackageFilesMemo | undefined;
  unchanged(now: Signature, then: Signature): boolean;
  liveDir: string;
}

/** Git's digests of the catalogue's files (read/gitDigests.ts), asked for on first use. */
export type GitDigests = () => ReadonlyMap<string, number>;

/**
 * The signatures of a package's files: the zip's (under ""), or every folder and file of its folder,
 * by path. A file's row has its digest when `digests` (git's, by path in the catalogue) knows it.
 */
export function packageFilesSignatures(
  catalogueDir: string,
  host: string,
  name: string,
  digests?: ReadonlyMap<string, number>,
): PackageFilesMemo["signatures"] {
  const row = (path: string, s: Stats, file: string): PackageFilesMemo["signatures"][number] => {
    const digest = s.isDirectory() ? FOLDER_ROW : digests?.get(file);
    const signature = signatureOf(s);
    const numbers = [signature.size, signature.mtimeMs, signature.ctimeMs, signature.ino] as const;
    return digest === undefined ? [path, ...numbers] : [path, ...numbers, digest];
  };
  const zip = join(catalogueDir, host, `${name}.zip`);
  const zipStats = lstatOrNothing(zip);
  if (zipStats?.isFile()) {
    // A folder beside the zip is a problem (PACKAGE_FILES_TWICE) the files must be read again to report.
    const folder = lstatOrNothing(join(catalogueDir, host, name));
    return [row("", zipStats, `${host}/${name}.zip`), ...(folder ? [row("/", folder, `${host}/${name}`)] : [])];
  }
  const rows: PackageFilesMemo["signatures"] = [];
  const walk = (dir: string, path: string): void => {
    const stats = lstatOrNothing(dir);
    if (!stats) return;
    rows.push(row(path, stats, `${host}/${name}${path}`));
    if (!stats.isDirectory()) return;
    for (const entry of readdirSync(dir).sort()) walk(join(dir, entry), `${path}/${entry}`);
  };
  walk(join(catalogueDir, host, name), "");
  return rows;
}

function lstatOrNothing(path: string): Stats | undefined {
  try {
    // Without an exception for a missing file: a folder package's zip is looked for on every rebuild.
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    // A path the system cannot stat is treated as absent; reading the files then reports why.
    return undefined;
  }
}

/**
 * Whether a package's files `now` have the paths and signatures `then` recorded, as `unchanged` judges
 * each, or the same digests. A folder holds by its path alone: its entries are the rows after it,
 * each compared, so one added, removed or renamed changes the rows.
 */
export function signaturesHold(
  then: PackageFilesMemo["signatures"],
  now: PackageFilesMemo["signatures"],
  unchanged: (now: Signature, then: Signature) => boolean,
): boolean {
  if (then.length !== now.length) return false;
  for (let i = 0; i < now.length; i++) {
    const [path, size, mtimeMs, ctimeMs, ino, digest] = then[i]!;
    const [nowPath, nowSize, nowMtimeMs, nowCtimeMs, nowIno, nowDigest] = now[i]!;
    if (path !== nowPath) return false;
    if (digest !== undefined && digest === nowDigest) continue;
    const at = { size: nowSize, mtimeMs: nowMtimeMs, ctimeMs: nowCtimeMs, ino: nowIno };
    if (digest === FOLDER_ROW || nowDigest === FOLDER_ROW || !unchanged(at, { size, mtimeMs, ctimeMs, ino }))
      return false;
  }
  return true;
}

/** Whether the live slot still holds the memo's stored files. */
function storedFilesLive(memo: PackageFilesMemo, reuse: PackageFilesReuse): boolean {
  const { archive, icon, binary, meta } = memo.paths;
  return [archive, icon, binary, ...(meta !== undefined ? [meta] : [])].every((p) =>
    lstatOrNothing(join(reuse.liveDir, p))?.isFile(),
  );
}

/**
 * The content digest of package `name`'s files as they are now, read without zipping or checking
 * them (a zip's SHA-256, a folder's digest); undefined when they have a problem that only reading
 * them in full reports.
 */
async function contentNow(catalogueDir: string, host: string, name: string): Promise<string | undefined> {
  const { files, problems } = await findPackageFiles(catalogueDir, host, name);
  if (problems.length > 0 || files.kind === "none") return undefined;
  if (files.kind === "folder") return digestPackageFolder(files.path);
  const sha256 = createHash("sha256");
  for await (const chunk of createReadStream(files.path)) sha256.update(chunk as Buffer);
  return zipContent(sha256.digest("hex"));
}

/**
 * Whether the memo stands for the package's files now: they kept their signatures, or else their
 * content (a fresh clone: every file has new dates and inodes, its bytes are the same), and the live
 * slot holds its stored files.
 */
async function memoHolds(
  memo: PackageFilesMemo,
  now: PackageFilesMemo["signatures"],
  reuse: PackageFilesReuse,
  catalogueDir: string,
  ref: ManifestRef,
): Promise<boolean> {
  if (!storedFilesLive(memo, reuse)) return false;
  if (signaturesHold(memo.signatures, now, reuse.unchanged)) return true;
  return (await contentNow(catalogueDir, ref.host, ref.name)) === memo.content;
}

/**
 * Reads a package's files, merges what they derive into its manifest and, given `store` (a folder on
 * the output's file system), unpacks the entries the build serves beside the archive into
 * `<store>/<host>/<name>/` (streamed, never held in memory); a folder is zipped there too. With
 * `reuse`, files that kept their signatures are not read at all: the last build's values are merged,
 * and its stored files are linked from the live slot.
 */
export async function loadPackageFiles(
  catalogueDir: string,
  ref: ManifestRef,
  source: { manifest: Manifest | undefined; stats: PackageStats | undefined },
  into: { workDir: string; store: boolean; reuse?: PackageFilesReuse | undefined; digests?: GitDigests | undefined },
): Promise<{ problems: Problem[]; pkg?: RenderedPackage }> {
  const { manifest, stats } = source;
  const { workDir, store, reuse } = into;
  // Taken before the files are read: a change while they are read is seen by the next build.
  const signatures = packageFilesSignatures(catalogueDir, ref.host, ref.name, into.digests?.());
  const memo = reuse?.memo(ref.host, ref.name);
  if (memo && reuse && (await memoHolds(memo, signatures, reuse, catalogueDir, ref))) {
    if (!manifest) return { problems: memo.warnings };
    const merged = mergeDerived(manifest, memo.derived, ref.file);
    const problems = [...memo.warnings, ...merged.problems];
    if (problems.some(isError)) return { problems };
    const live = (path: string): FileContent => ({ file: join(reuse.liveDir, path), link: true });
    const files: StoredPackageFiles = {
      archive: live(memo.paths.archive),
      icon: live(memo.paths.icon),
      binary: { name: memo.derived.package_type === "elf" ? "boot.elf" : "boot.dol", content: live(memo.paths.binary) },
      ...(memo.paths.meta !== undefined ? { meta: live(memo.paths.meta) } : {}),
      // The signatures taken now: a file that kept its content but moved (a clone) is known by them next time.
      memo: { signatures, content: memo.content, derived: memo.derived, warnings: memo.warnings },
    };
    return { problems, pkg: renderWithFiles(ref, manifest, merged.package, stats, memo.derived, files) };
  }
  // Read even beside an invalid manifest, so that one run reports the files' problems too. The
  // entries served beside the archive are unpacked into `at` as it is checked, once.
  const at = join(workDir, ref.host, ref.name);
  const read = await readPackageFiles(catalogueDir, ref.host, ref.name, {
    workDir,
    ...(store ? { unpackTo: at } : {}),
  });
  if (!manifest || !read.derived || !read.archive || read.content === undefined) return { problems: read.problems };
  const merged = mergeDerived(manifest, read.derived, ref.file);
  const problems = [...read.problems, ...merged.problems];
  if (problems.some(isError)) return { problems };
  const derived = read.derived;
  const binary = derived.package_type === "elf" ? "boot.elf" : "boot.dol";
  // The catalogue's zip is copied, never linked: an editor changing it must not change the output.
  // The rest was made for this build in workDir: moved in. The placeholder is the tool's own: copied.
  const files: StoredPackageFiles = {
    archive: {
      file: read.archive,
      move: read.files.kind === "folder",
      digest: { size: derived.zip_size, sha256: derived.zip_sha256 },
    },
    icon: derived.icon ? { file: join(at, "icon.png"), move: true } : { file: PLACEHOLDER_ICON },
    binary: {
      name: binary,
      content: {
        file: join(at, binary),
        move: true,
        digest: { size: derived.binary.size, sha256: derived.binary.sha256 },
      },
    },
    ...(derived.metaEntry !== undefined ? { meta: { file: join(at, "meta.xml"), move: true } } : {}),
    memo: { signatures, content: read.content, derived, warnings: read.problems },
  };
  return { problems, pkg: renderWithFiles(ref, manifest, merged.package, stats, derived, files) };
}

function renderWithFiles(
  ref: ManifestRef,
  manifest: Manifest,
  merged: Partial<Manifest>,
  stats: PackageStats | undefined,
  derived: DerivedFiles,
  stored: StoredPackageFiles,
): RenderedPackage {
  return {
    name: ref.name,
    json: renderPackage(merged as Manifest, stats),
    category: manifest.category,
    coder: merged.coder!,
    ...(stats ? { stats } : {}),
    files: filesInfoOf(derived),
    stored,
    today: todayPackageOf(merged as Manifest, stats, {
      derived,
      iconSize: derived.icon?.size ?? placeholderIconSize(),
    }),
  };
}

/** What a package's files derive, as the site and the Homebrew Browser's list show it. */
export function filesInfoOf(derived: DerivedFiles): PackageFilesInfo {
  return {
    zipSize: derived.zip_size,
    icon: derived.icon !== undefined,
    iconSize: derived.icon?.size ?? placeholderIconSize(),
    binarySize: derived.binary.size,
    subdirectories: derived.subdirectories,
  };
}

/**
 * Reads, validates and renders one manifest, with its entry in the host's stats file if it has one.
 * A manifest with package files beside it (`ref.files`) is returned unrendered, as `withFiles`:
 * loadPackageFiles renders it with what its files derive.
 */
export function loadManifest(
  catalogueDir: string,
  ref: ManifestRef,
  validators: Validators,
  stats: PackageStats | undefined,
): { problems: Problem[]; loaded?: LoadedPackage; withFiles?: { manifest?: Manifest; signature?: Signature } } {
  const source = readSourceFile(join(catalogueDir, ref.file), MAX_SOURCE_BYTES);
  const checked = validateManifest(ref, source, validators);
  if (ref.files !== undefined) {
    return {
      problems: checked.problems,
      withFiles: {
        ...(checked.manifest ? { manifest: checked.manifest } : {}),
        ...(source.signature ? { signature: source.signature } : {}),
      },
    };
  }
  if (!checked.manifest) return { problems: checked.problems };
  // A valid manifest was read, so its signature was taken.
  return {
    problems: checked.problems,
    loaded: {
      pkg: {
        name: ref.name,
        json: renderPackage(checked.manifest, stats),
        category: checked.manifest.category,
        coder: checked.manifest.coder,
        ...(stats ? { stats } : {}),
        today: todayPackageOf(checked.manifest, stats),
      },
      signature: source.signature!,
    },
  };
}

/** The order of a host's packages: by name, in code-point order. */
export function byName(a: { name: string }, b: { name: string }): number {
  return compareCodePoints(a.name, b.name);
}

/** Reads and validates the whole catalogue, and renders every package for onPackage. */
export interface LoadOptions {
  /**
   * Where package folders are zipped and, with `store`, the stored entries unpacked; the caller
   * removes it. Without it a temporary folder is used and removed (then `store` must be off).
   */
  workDir?: string;
  /** Unpack the entries a build serves (binary, meta.xml, icon) into `workDir`. */
  store?: boolean;
  /** The last build's package files, reused where they kept their signatures. */
  reuse?: PackageFilesReuse;
  /** Git's digests of the catalogue's files, recorded with the package files' signatures. */
  digests?: GitDigests;
  /**
   * Load for the names alone (loadCatalogueNames): a package's files are read only when its manifest
   * leaves its coder to meta.xml; the others are rendered from their manifests, unchecked.
   */
  namesOnly?: boolean;
  /**
   * Told each valid package as soon as it and every package before it are loaded, host after host
   * in the catalogue's order and by name within a host, when hosts.json is valid; nothing keeps it
   * after (without onPackage, only the problems are wanted). What the Homebrew Browser's lists
   * report of the packages is the caller's to add (render/renderHbb.ts's HbbLists).
   */
  onPackage?: (host: string, loaded: LoadedPackage) => void;
  /**
   * Told the hosts before the first package, when hosts.json is valid, whether any package has
   * files (then the catalogue has the Homebrew Browser's surface) and how many manifests each host
   * has (at most that many packages: what its index is made room for).
   */
  onHosts?: (hosts: HostsFile, withFiles: boolean, manifests: ReadonlyMap<string, number>) => void;
}

export async function loadCatalogue(
  catalogueDir: string,
  onProgress?: (done: number, total: number) => void,
  options: LoadOptions = {},
): Promise<LoadedCatalogue> {
  const listing = listCatalogue(catalogueDir);
  const validators = await schemaValidators();
  const problems: Problem[] = [];

  const hostsEntry = listing.root.find((e) => e.name === HOSTS_FILE);
  // A hosts.json that is not a regular file is reported by validateLayout; it cannot declare hosts.
  const hostsSource =
    hostsEntry?.kind === "file" ? readSourceFile(join(catalogueDir, HOSTS_FILE), MAX_SOURCE_BYTES) : undefined;
  const hosts = hostsEntry === undefined || hostsSource ? validateHostsFile(hostsSource, validators) : { problems: [] };
  problems.push(...hosts.problems);

  const layout = validateLayout(listing, hosts.declared);
  // Taken now, so that the listing (an entry a manifest) is let go before the manifests are read.
  const folders = hosts.hostsFile
    ? folderSignatures(
        listing,
        hosts.hostsFile.hosts.map((h) => h.id),
      )
    : null;
  problems.push(...layout.problems);

  const stats = new Map<string, { signature: Signature; entries: HostStats }>();
  for (const ref of layout.stats) {
    const source = readSourceFile(join(catalogueDir, ref.file), MAX_STATS_BYTES);
    const checked = validateStatsFile(ref.file, source, validators);
    problems.push(...checked.problems);
    if (checked.stats) stats.set(ref.host, { signature: source.signature!, entries: hostStatsOf(checked.stats) });
  }

  const withFiles = layout.manifests.hasPackageFiles();
  const ownWorkDir = withFiles && options.workDir === undefined;
  const workDir = options.workDir ?? (withFiles ? mkdtempSync(join(tmpdir(), "shopfront-files-")) : "");
  if (hosts.hostsFile && options.onHosts) {
    options.onHosts(hosts.hostsFile, withFiles && !options.namesOnly, layout.manifests.counts());
  }
  const onPackage = options.onPackage;
  const refs = layout.manifests.sorted(hosts.declared ?? []);
  // Packages are handed on in the order of refs, though their files finish out of it.
  const done = new Map<number, { host: string; loaded: LoadedPackage } | null>();
  let handed = 0;
  const settle = (k: number, host: string, result: LoadedPackage | undefined) => {
    // Without valid hosts there is nothing to build: the manifests are still checked, for their problems.
    if (!onPackage || !hosts.hostsFile) return;
    done.set(k, result ? { host, loaded: result } : null);
    for (let next = done.get(handed); next !== undefined; next = done.get(handed)) {
      done.delete(handed++);
      if (next) onPackage(next.host, next.loaded);
    }
  };
  // Packages whose files are read at once: zlib deflates and inflates on its own threads while this
  // one hashes and checks, so a few in flight keep every core busy. Each package's problems are
  // added in one block, so their order after sortProblems does not depend on which finished first.
  const reading = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let finished = 0;
  const progress = () => onProgress?.(++finished, layout.manifests.length);
  try {
    let count = 0;
    for (const ref of refs) {
      // The ref's place in the order packages are handed on in (a constant each: the reads' callbacks keep it).
      const k = count++;
      if (failure) break;
      checkMemory("reading the manifests");
      const entry = stats.get(ref.host)?.entries.get(ref.name);
      const manifest = loadManifest(catalogueDir, ref, validators, entry);
      const named = manifest.withFiles?.manifest;
      if (manifest.withFiles && !options.namesOnly) {
        const signature = manifest.withFiles.signature!;
        const task = loadPackageFiles(
          catalogueDir,
          ref,
          { manifest: named, stats: entry },
          { workDir, store: options.store === true, reuse: options.reuse, digests: options.digests },
        )
          .then((files) => {
            problems.push(...manifest.problems, ...files.problems);
            progress();
            settle(k, ref.host, files.pkg && { pkg: files.pkg, signature });
          })
          .catch((error: unknown) => {
            failure ??= { error };
          })
          .finally(() => reading.delete(task));
        reading.add(task);
        if (reading.size >= PACKAGES_AT_ONCE) await Promise.race(reading);
        continue;
      }
      if (manifest.problems.length > 0) problems.push(...manifest.problems);
      let result = manifest.loaded;
      if (manifest.withFiles && named?.coder !== undefined) {
        result = { pkg: namesOnlyPackage(ref, named, entry), signature: manifest.withFiles.signature! };
      } else if (manifest.withFiles && named !== undefined) {
        // Names alone, but the coder is meta.xml's: this package's files are read after all.
        const files = await loadPackageFiles(
          catalogueDir,
          ref,
          { manifest: named, stats: entry },
          { workDir, store: false },
        );
        problems.push(...files.problems);
        if (files.pkg) result = { pkg: files.pkg, signature: manifest.withFiles.signature! };
      }
      progress();
      settle(k, ref.host, result);
    }
    await Promise.all(reading);
    if (failure) throw failure.error;
  } finally {
    if (ownWorkDir) rmSync(workDir, { recursive: true, force: true });
  }

  const statsSources = new Map<string, StatsSource>();
  for (const host of hosts.hostsFile?.hosts.map((h) => h.id) ?? []) {
    const file = stats.get(host);
    // The manifests there are, valid or not: an entry of an invalid one is no orphan.
    const files = file && file.entries.size > 0 ? new Set(layout.manifests.filesOf(host)) : undefined;
    const orphans = [...(file?.entries ?? [])]
      .filter(([name]) => !files!.has(`${name}${MANIFEST_EXTENSION}`))
      .sort((a, b) => byName({ name: a[0] }, { name: b[0] }));
    problems.push(
      ...unknownStatsProblems(
        host,
        orphans.map(([name]) => name),
      ),
    );
    statsSources.set(host, { signature: file?.signature ?? null, orphans });
  }

  const sorted = sortProblems(problems);
  if (sorted.some(isError) || !hosts.hostsFile) return { problems: sorted };
  return {
    problems: sorted,
    // A valid hosts file was read, so its signature was taken.
    sources: { hostsFile: hostsSource!.signature!, folders, stats: statsSources },
  };
}

/**
 * A package with files, from its manifest alone (which names its coder): its name, category and
 * coder are what loadCatalogueNames takes; its files are neither read nor checked.
 */
function namesOnlyPackage(ref: ManifestRef, manifest: Manifest, stats: PackageStats | undefined): RenderedPackage {
  return {
    name: ref.name,
    json: renderPackage(manifest, stats),
    category: manifest.category,
    coder: manifest.coder,
    ...(stats ? { stats } : {}),
    today: todayPackageOf(manifest, stats),
  };
}

/**
 * The catalogue's names (hosts, packages, coders, categories), what `config` lists, and the problems
 * of its manifests. Package files are not zipped, checked or hashed: only a package whose manifest
 * leaves its coder to meta.xml has its files read. `validate` and `build` check them.
 */
export async function loadCatalogueNames(
  catalogueDir: string,
): Promise<{ problems: Problem[]; names?: CatalogueNames }> {
  let hosts: string[] = [];
  // Strings alone, a few a package: what the names are made of.
  const packages = new Map<string, { name: string; category: string; coder: string }[]>();
  const { problems, sources } = await loadCatalogue(catalogueDir, undefined, {
    namesOnly: true,
    onHosts: (hostsFile) => {
      hosts = hostsFile.hosts.map((h) => h.id);
    },
    onPackage: (host, { pkg }) => {
      let list = packages.get(host);
      if (!list) packages.set(host, (list = []));
      list.push({ name: pkg.name, category: pkg.category, coder: pkg.coder });
    },
  });
  return sources ? { problems, names: namesOf(hosts, packages) } : { problems };
}
