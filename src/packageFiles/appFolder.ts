// An app's folder as it sits on an SD card (apps/<name>/: boot.dol or boot.elf, meta.xml, icon.png),
// turned into a package folder (<name>/apps/<name>/...) for `new --from` and `import apps`. The
// Homebrew Channel reads these files' names in any case (FAT ignores it), and so does this module.
import { cpSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import yauzl from "yauzl";
import { userDataOf } from "./userData.js";

/** The files that make a folder an app's folder: any one of them, in any case. */
export const APP_FOLDER_FILES = ["boot.dol", "boot.elf", "meta.xml"] as const;

/** The files directly in `dir`, by their lowercase names (`Icon.PNG` under `icon.png`). */
export function appFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && !entry.name.startsWith(".")) files.set(entry.name.toLowerCase(), entry.name);
  }
  return files;
}

/** True when `dir` holds boot.dol, boot.elf or meta.xml: an app's folder, not an SD card tree. */
export function isAppFolder(dir: string): boolean {
  const files = appFiles(dir);
  return APP_FOLDER_FILES.some((f) => files.has(f));
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * The meta.xml written for an app that has none: the name it is known by, and a comment naming what
 * the Homebrew Channel shows and nobody knew. No date: a date written here would later be read as
 * the author's.
 */
export function minimalMetaXml(displayName: string): string {
  return [
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`,
    `<!-- Written by shopfront for an app that had no meta.xml: add <coder>, <version>,`,
    `     <release_date> (yyyyMMddHHmmss), <short_description> and <long_description>. -->`,
    `<app version="1">`,
    `  <name>${escapeXml(displayName)}</name>`,
    `</app>`,
    ``,
  ].join("\n");
}

export interface StagedApp {
  /** The package folder: it holds apps/<name>/. */
  path: string;
  /** The meta.xml written for an app without one. */
  metaWritten?: string;
  /** The file copied to icon.png, for an app whose icon has another name. */
  iconFrom?: string;
  /** Whether the staged app has an icon.png (its own, or one copied from iconFrom). */
  hasIcon: boolean;
  /** What the app wrote in its folder for its user (userData.ts), left out: each entry (a folder ends in `/`) and what it is. */
  leftOut: { entry: string; what: string }[];
}

/** A PNG of the app folder that is plainly its icon under another name (`Icon_HD.png`), if exactly one is. */
function otherIcon(files: Map<string, string>): string | undefined {
  const icons = [...files.keys()].filter((f) => f.endsWith(".png") && f.includes("icon"));
  return icons.length === 1 ? files.get(icons[0]!) : undefined;
}

/**
 * Copies the app folder `from` to `<into>/apps/<name>/` (symbolic links copied as links, for the
 * package check to refuse), writing a minimal meta.xml when it has none (named after `displayName`)
 * and an icon.png from an icon under another name, and leaving out what the app wrote for its user
 * (settings, downloaded lists and caches). `into` must not exist.
 */
export function stageAppFolder(from: string, name: string, into: string, displayName: string): StagedApp {
  const app = join(into, "apps", name);
  mkdirSync(join(into, "apps"), { recursive: true });
  cpSync(from, app, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
  const entries = readdirSync(app, { withFileTypes: true }).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
  const leftOut = userDataOf(basename(resolve(from)), entries);
  for (const { entry } of leftOut) rmSync(join(app, entry), { recursive: true, force: true });
  const staged: StagedApp = { path: into, leftOut, hasIcon: false };
  const files = appFiles(app);
  if (!files.has("meta.xml")) {
    staged.metaWritten = minimalMetaXml(displayName);
    writeFileSync(join(app, "meta.xml"), staged.metaWritten);
  }
  if (!files.has("icon.png")) {
    const icon = otherIcon(files);
    if (icon !== undefined) {
      copyFileSync(join(app, icon), join(app, "icon.png"));
      staged.iconFrom = icon;
    }
  }
  staged.hasIcon = files.has("icon.png") || staged.iconFrom !== undefined;
  return staged;
}

/** The newest modification time (Unix seconds) of the files in the tree `dir`; links are not followed. */
export function newestFileTime(dir: string): number | undefined {
  let newest: number | undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const seconds = Math.floor(lstatSync(join(entry.parentPath, entry.name)).mtimeMs / 1000);
    if (newest === undefined || seconds > newest) newest = seconds;
  }
  return newest;
}

/** The newest time (Unix seconds) of the archive's file entries, as their DOS times say (read as UTC). */
export async function newestEntryTime(zip: string): Promise<number | undefined> {
  const zipfile = await yauzl.openPromise(zip, { lazyEntries: true, decodeStrings: false });
  let newest: number | undefined;
  try {
    for await (const entry of zipfile.eachEntry()) {
      if (entry.fileNameRaw[entry.fileNameRaw.length - 1] === 0x2f) continue;
      const seconds = Math.floor(entry.getLastModDate({ timezone: "UTC" }).getTime() / 1000);
      if (newest === undefined || seconds > newest) newest = seconds;
    }
  } finally {
    zipfile.close();
  }
  return newest;
}

/** The folders `apps/<X>/` an archive holds (X as stored), read from its central directory alone. */
export async function zipAppFolders(zip: string): Promise<string[]> {
  const zipfile = await yauzl.openPromise(zip, { lazyEntries: true, decodeStrings: false });
  const folders = new Set<string>();
  try {
    for await (const entry of zipfile.eachEntry()) {
      const match = /^apps\/([^/]+)\//i.exec(entry.fileNameRaw.toString("utf8"));
      if (match) folders.add(match[1]!);
    }
  } finally {
    zipfile.close();
  }
  return [...folders].sort();
}
