// `shopfront import apps DIR`: an SD card's apps (DIR is its apps/ folder, its root, or any folder of
// app folders and app zips) -> what writeImport writes. Every app is staged first, into a folder of
// its own outside the catalogue: copied under the name it gets (a folder name that breaks the name
// rule gets a proposed one), without what the app wrote there for its user (packageFiles/userData.ts),
// completed (a minimal meta.xml, icon.png from an icon under another name or the card's Homebrew
// Browser's cache) and checked as a build would check it. Its manifest takes what the card's
// Homebrew Browser list says of it (cardHbbList.ts) and what its meta.xml says; a date nothing
// gives is guessed once every app is read, below every date the host will know, and marked so.
// Nothing is written into the catalogue here.
import { copyFileSync, existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { GUESSED_DATE_KEY } from "../catalogue/guessedDate.js";
import { foldCase, isValidName, NAME_RULE, proposeName } from "../catalogue/names.js";
import { isError } from "../catalogue/problems.js";
import {
  isAppFolder,
  newestEntryTime,
  newestFileTime,
  stageAppFolder,
  zipAppFolders,
} from "../packageFiles/appFolder.js";
import type { PackageFinding } from "../packageFiles/checkZipEntries.js";
import { guessReleaseDate } from "../packageFiles/guessReleaseDate.js";
import { inspectPackageZip, type PackageZipReport } from "../packageFiles/inspectPackageZip.js";
import { manifestFromFiles } from "../packageFiles/manifestFromFiles.js";
import { zipAndCheckFolder } from "../packageFiles/checkFolderZip.js";
import { DEFAULT_ZIP_LIMITS } from "../packageFiles/zipLimits.js";
import { readReleaseDates } from "../read/readReleaseDates.js";
import { compareCodePoints } from "../util/codePoints.js";
import { UsageError } from "../util/errors.js";
import { MANIFEST_EXTENSION } from "../validate/catalogueRules.js";
import { HBB_CATEGORIES } from "../render/renderHbb.js";
import { findCachedIcon, findCardList, readCardList, type CardList } from "./cardHbbList.js";
import type { ImportedPackage, ImportSource, SkippedEntry } from "./writeImport.js";

export interface ReadAppsOptions {
  /** An SD card's apps/ folder, its root, or a folder of app folders and app zips. */
  dir: string;
  host: string;
  catalogueDir: string;
  /** Where the apps are staged: an empty folder the caller removes. */
  stageDir: string;
  /** With force, apps already in the catalogue are read again (to be overwritten). */
  force: boolean;
  /** The wall clock, for a release date nothing else gives (tests fix it). */
  now?: () => number;
  /** A Homebrew Browser list to read instead of the card's own apps/homebrew_browser/listv036.txt. */
  hbbList?: string;
}

export interface AppsRead {
  source: ImportSource;
  /** What the maintainer must know: a renamed folder, a guessed date, an icon copied. */
  warnings: string[];
  /** The meta.xml written for each app that had none, to be completed. */
  metaWritten: { file: string; text: string }[];
  /** Apps whose manifest the catalogue has: left as they are (without force). */
  alreadyThere: string[];
  /** The Homebrew Browser list read, as the reports name it; undefined when there was none. */
  hbbList?: string;
  /** Per app imported, where each of its manifest's fields came from. */
  origins: string[];
}

/** The manifest fields an app's meta.xml, a list or a default can give, in the order reports name them. */
const ORIGIN_FIELDS = [
  "category",
  "release_date",
  "controllers",
  "display_name",
  "coder",
  "version",
  "short_description",
  "long_description",
] as const;
type OriginField = (typeof ORIGIN_FIELDS)[number];

/** Fields a list gives only where meta.xml lacks them: meta.xml is the author's own word. */
/** The category the manifest template gives an app that nothing names one for. */
const DEFAULT_CATEGORY = "utilities";

/** Fields a list gives only where meta.xml lacks them (the folder's name is no display name): meta.xml is the author's own word. */
const META_FIRST: readonly OriginField[] = [
  "display_name",
  "coder",
  "version",
  "short_description",
  "long_description",
];

/** A package whose release date is guessed once every dated app of the import is known. */
interface PendingGuess {
  pkg: ImportedPackage;
  newest: number | undefined;
}

/** The folder that holds the apps, and the card's root when DIR is one. */
function appsFolder(dir: string): { apps: string; root?: string } {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`cannot read ${dir}: there is no such folder`);
  const apps = readdirSync(dir, { withFileTypes: true }).find(
    (e) => e.isDirectory() && e.name.toLowerCase() === "apps",
  );
  if (apps && !isAppFolder(dir)) return { apps: join(dir, apps.name), root: dir };
  return { apps: dir };
}

/** A finding as a reason, naming its entry once (most messages start with it already). */
function describeFinding(f: PackageFinding): string {
  return f.entry === undefined || f.message.startsWith(f.entry) ? f.message : `${f.entry}: ${f.message}`;
}

/** An app's files checked as a build checks them (a folder zipped first), with what they derive. */
async function checkPackage(
  kind: "zip" | "folder",
  path: string,
  name: string,
  workZip: string,
): Promise<PackageZipReport> {
  if (kind === "zip") return inspectPackageZip(path, name);
  const zipped = await zipAndCheckFolder(path, workZip, name, { limits: DEFAULT_ZIP_LIMITS });
  if (!zipped.report) return { findings: zipped.findings };
  return { ...zipped.report, findings: [...zipped.findings, ...zipped.report.findings] };
}

/** Reads DIR's apps for `host`, staging each; see the module's comment. */
export async function readApps(options: ReadAppsOptions): Promise<AppsRead> {
  const { host, catalogueDir, stageDir } = options;
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  const { apps, root } = appsFolder(options.dir);
  const single = isAppFolder(apps);
  const entries = single
    ? [{ name: apps.split(/[\\/]/).filter(Boolean).pop()!, path: apps }]
    : readdirSync(apps)
        .filter((e) => !e.startsWith("."))
        .sort(compareCodePoints)
        .map((e) => ({ name: e, path: join(apps, e) }));
  const read: AppsRead = {
    source: { hostIds: [host], packages: [], skipped: [], notCarriedOver: new Map(), notes: [] },
    warnings: [],
    metaWritten: [],
    alreadyThere: [],
    origins: [],
  };
  const listPath = options.hbbList ?? findCardList(apps);
  let list: CardList | undefined;
  if (listPath !== undefined) {
    const file =
      options.hbbList !== undefined
        ? options.hbbList
        : `${root !== undefined ? "apps/" : ""}${relative(apps, listPath).split(sep).join("/")}`;
    list = readCardList(listPath, file, host);
    read.hbbList = file;
  }
  const pending: PendingGuess[] = [];
  const defaulted: string[] = [];
  const skip = (source: string, reasons: string[], name?: string): void => {
    const entry: SkippedEntry = { source, host, reasons };
    if (name !== undefined) entry.name = name;
    read.source.skipped.push(entry);
  };
  const hostDates = readReleaseDates(catalogueDir, host);
  const taken = new Map<string, string>();
  const ignored: string[] = [];
  for (const [i, { name: entryName, path }] of entries.entries()) {
    const stats = lstatSync(path);
    const isZip = stats.isFile() && entryName.toLowerCase().endsWith(".zip");
    const source = stats.isDirectory() ? `${entryName}/` : entryName;
    if (stats.isSymbolicLink()) {
      skip(source, ["is a symbolic link (not followed: it could point outside): copy the app's folder itself here"]);
      continue;
    }
    if (!stats.isDirectory() && !isZip) {
      ignored.push(entryName);
      continue;
    }
    let name: string;
    let folderName = entryName;
    if (isZip) {
      const folders = await zipAppFolders(path).catch(() => undefined);
      if (folders === undefined || folders.length !== 1) {
        const reason =
          folders === undefined
            ? "cannot be read as a zip archive"
            : folders.length === 0
              ? "holds no apps/<name>/ folder"
              : `holds ${folders.length} apps (${folders.map((f) => `apps/${f}/`).join(", ")})`;
        skip(source, [
          `${reason}: unzip it into this folder (an SD card tree, or the app's folder) and run the import again`,
        ]);
        continue;
      }
      folderName = folders[0]!;
      if (!isValidName(folderName)) {
        skip(source, [
          `its apps/${folderName}/ cannot be a package name (${NAME_RULE}): unzip it here and run again, and its folder gets a valid name`,
        ]);
        continue;
      }
      name = folderName;
    } else {
      if (!isAppFolder(path)) {
        const hasApps = readdirSync(path).some((e) => e.toLowerCase() === "apps");
        skip(source, [
          hasApps
            ? `holds apps/, an SD card tree: import it on its own, npx shopfront import apps ${path}`
            : "holds no boot.dol, boot.elf or meta.xml: it is no app folder (move the app's folder, the one holding boot.dol and meta.xml, here)",
        ]);
        continue;
      }
      const proposed = isValidName(folderName) ? folderName : proposeName(folderName);
      if (proposed === undefined) {
        skip(source, [
          `its name cannot be a package name and no valid name can be made of it: rename the folder (${NAME_RULE})`,
        ]);
        continue;
      }
      name = proposed;
    }
    const other = taken.get(foldCase(name));
    if (other !== undefined) {
      skip(
        source,
        [`its package name ${name} is ${other}'s too (names are the same ignoring case): rename one of the two`],
        name,
      );
      continue;
    }
    taken.set(foldCase(name), source);
    const manifestFile = `${host}/${name}${MANIFEST_EXTENSION}`;
    if (!options.force && existsSync(join(catalogueDir, manifestFile))) {
      read.alreadyThere.push(manifestFile);
      continue;
    }
    const listed = list?.apps.get(foldCase(folderName)) ?? list?.apps.get(foldCase(name));
    let filesPath = path;
    let metaWritten = false;
    const renamed = name !== folderName;
    if (!isZip) {
      const staged = stageAppFolder(
        path,
        name,
        join(stageDir, String(i), name),
        String(listed?.fields.display_name ?? (folderName.replace(/["'`]/g, "").trim() || name)),
      );
      filesPath = staged.path;
      metaWritten = staged.metaWritten !== undefined;
      if (staged.metaWritten !== undefined)
        read.metaWritten.push({ file: `${host}/${name}/apps/${name}/meta.xml`, text: staged.metaWritten });
      for (const { entry, what } of staged.leftOut)
        read.source.notes!.push(
          `${source}${entry} is left out: ${what}, which the app writes for whoever uses it, not part of the app`,
        );
      const cached = staged.hasIcon ? undefined : findCachedIcon(apps, folderName);
      if (cached !== undefined) {
        copyFileSync(cached, join(staged.path, "apps", name, "icon.png"));
        read.source.notes!.push(
          `${source} has no icon.png: it gets the one the card's Homebrew Browser downloaded for it, ${relative(apps, cached).split(sep).join("/")}`,
        );
      }
      if (staged.iconFrom !== undefined)
        read.warnings.push(
          `${source}: its icon is ${staged.iconFrom}; copied to icon.png, the name the Homebrew Channel reads`,
        );
    }
    const report = await checkPackage(isZip ? "zip" : "folder", filesPath, name, join(stageDir, `${i}.zip`));
    const errors = report.findings.filter(isError);
    if (errors.length > 0 || !report.derived) {
      skip(source, errors.length > 0 ? errors.map(describeFinding) : ["its files cannot be read"], name);
      continue;
    }
    if (renamed)
      read.warnings.push(
        `${source} is imported as ${name} (its name breaks the rule: ${NAME_RULE}): the app now installs at sd:/apps/${name}/, not sd:/apps/${folderName}/, so an app that looks for its own files at its old path needs them there; to choose another name, rename the folder and import again`,
      );
    const meta = report.derived.meta;
    const { text, fillIn } = manifestFromFiles(name, undefined, meta, meta?.release_date ?? 0);
    const manifest = JSON.parse(text) as Record<string, unknown>;
    const origin = new Map<string, OriginField[]>();
    const from = (where: string, field: OriginField) => origin.set(where, [...(origin.get(where) ?? []), field]);
    for (const field of ORIGIN_FIELDS) {
      const fromList = listed?.fields[field];
      // The meta.xml written for an app without one knows nothing but the folder's name.
      const fromMeta =
        field === "release_date"
          ? meta?.release_date !== undefined
          : !fillIn.includes(field) && !(metaWritten && field === "display_name");
      if (fromList !== undefined && !(fromMeta && META_FIRST.includes(field))) {
        manifest[field] = fromList;
        if (field === "release_date") manifest.updated = fromList;
        from(`from ${listed!.source}`, field);
      } else if (fromMeta && field !== "category" && field !== "controllers") from("from meta.xml", field);
      else if (field === "display_name" && metaWritten) from("from the folder's name", field);
      else if (field === "release_date") from("guessed", field);
      else if (field === "category" || field === "controllers") from("by default", field);
      else from("to fill in", field);
    }
    if (listed?.fields.category === undefined) defaulted.push(name);
    read.origins.push(`${source}: ${[...origin].map(([where, fields]) => `${fields.join(", ")} ${where}`).join("; ")}`);
    const pkg: ImportedPackage = {
      host,
      name,
      source,
      manifest,
      files: { kind: isZip ? "zip" : "folder", path: filesPath },
    };
    read.source.packages.push(pkg);
    if (meta?.release_date === undefined && listed?.fields.release_date === undefined)
      pending.push({ pkg, newest: isZip ? await newestEntryTime(path) : newestFileTime(path) });
  }
  // Guessed below every date the host will know: its dated packages and this import's.
  const known = [
    ...hostDates,
    ...read.source.packages
      .filter((p) => !pending.some((g) => g.pkg === p))
      .map((p) => p.manifest.release_date as number),
  ];
  for (const { pkg, newest } of pending) {
    const { date } = guessReleaseDate(newest, known, now);
    Object.assign(pkg.manifest, { release_date: date, updated: date, [GUESSED_DATE_KEY]: date });
  }
  if (defaulted.length > 0)
    read.warnings.push(
      `${defaulted.length === 1 ? "1 app was" : `${defaulted.length} apps were`} filed under ${DEFAULT_CATEGORY} by default, ${list ? `${list.file} not naming ${defaulted.length === 1 ? "it" : "them"}` : "no Homebrew Browser list naming them (--hbb-list FILE reads one)"}: ${defaulted.join(", ")}; set category in each manifest (${HBB_CATEGORIES.map((c) => c.category).join(", ")})`,
    );
  if (ignored.length > 0) read.source.notes!.push(`ignored, being no app folder or zip: ${ignored.join(", ")}`);
  if (root !== undefined) {
    const others = readdirSync(root, { withFileTypes: true })
      .filter((e) => !e.name.startsWith(".") && e.name.toLowerCase() !== "apps")
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    if (others.length > 0)
      read.source.notes!.push(
        `the card's ${others.join(", ")} ${others.length === 1 ? "is" : "are"} not imported: which app ${others.length === 1 ? "it belongs" : "they belong"} to is not known; put what an app needs beside its apps/ in its package folder by hand (catalogue/${host}/<name>/)`,
      );
  }
  if (entries.length === 0) throw new UsageError(`${apps} holds no app folders or app zips`);
  return read;
}
