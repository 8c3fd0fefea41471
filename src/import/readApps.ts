// `shopfront import apps DIR`: an SD card's apps (DIR is its apps/ folder, its root, or any folder of
// app folders and app zips) -> what writeImport writes. Every app is staged first, into a folder of
// its own outside the catalogue: copied under the name it gets (a folder name that breaks the name
// rule gets a proposed one), completed (a minimal meta.xml, icon.png from an icon under another name)
// and checked as a build would check it. Nothing is written into the catalogue here.
import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
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
import { guessedDateMessage, guessReleaseDate } from "../packageFiles/guessReleaseDate.js";
import { inspectPackageZip, type PackageZipReport } from "../packageFiles/inspectPackageZip.js";
import { manifestFromFiles } from "../packageFiles/manifestFromFiles.js";
import { zipPackageFolder } from "../packageFiles/zipPackageFolder.js";
import { readReleaseDates } from "../read/readReleaseDates.js";
import { compareCodePoints } from "../util/codePoints.js";
import { UsageError } from "../util/errors.js";
import { MANIFEST_EXTENSION } from "../validate/catalogueRules.js";
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
}

export interface AppsRead {
  source: ImportSource;
  /** What the maintainer must know: a renamed folder, a guessed date, an icon copied. */
  warnings: string[];
  /** The meta.xml written for each app that had none, to be completed. */
  metaWritten: { file: string; text: string }[];
  /** Apps whose manifest the catalogue has: left as they are (without force). */
  alreadyThere: string[];
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
  const zipped = await zipPackageFolder(path, workZip);
  if (zipped.findings.some(isError)) return { findings: zipped.findings };
  const report = await inspectPackageZip(workZip, name);
  return { ...report, findings: [...zipped.findings, ...report.findings] };
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
  };
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
    let filesPath = path;
    const renamed = name !== folderName;
    if (!isZip) {
      const staged = stageAppFolder(
        path,
        name,
        join(stageDir, String(i), name),
        folderName.replace(/["'`]/g, "").trim() || name,
      );
      filesPath = staged.path;
      if (staged.metaWritten !== undefined)
        read.metaWritten.push({ file: `${host}/${name}/apps/${name}/meta.xml`, text: staged.metaWritten });
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
    let released = meta?.release_date;
    if (released === undefined) {
      const newest = isZip ? await newestEntryTime(path) : newestFileTime(path);
      const guess = guessReleaseDate(newest, hostDates, now);
      released = guess.date;
      const unreadable = report.findings.some((f) => f.code === "META_BAD_DATE");
      read.warnings.push(
        guessedDateMessage(
          unreadable ? "unreadable" : "missing",
          `${source}${isZip ? "" : "meta.xml"}`,
          manifestFile,
          guess,
        ),
      );
    }
    const { text } = manifestFromFiles(name, undefined, meta, released);
    const pkg: ImportedPackage = {
      host,
      name,
      source,
      manifest: JSON.parse(text) as Record<string, unknown>,
      files: { kind: isZip ? "zip" : "folder", path: filesPath },
    };
    read.source.packages.push(pkg);
  }
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
