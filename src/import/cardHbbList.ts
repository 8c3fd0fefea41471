// The Homebrew Browser's own list on an SD card (apps/homebrew_browser/listv036.txt: the list it last
// downloaded) as what `import apps` knows of each app beyond its meta.xml: meta.xml has no category,
// and often no date. Read by the parser `import hbb` uses; an app is the list's entry of the same
// folder name (the list's internal name is the app's folder on the card), in any case.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { foldCase } from "../catalogue/names.js";
import { UsageError } from "../util/errors.js";
import { parseHbbList } from "./parseHbbList.js";

/** The Homebrew Browser's folder on a card, and the list in it that `import apps` reads. */
export const HBB_APP_FOLDER = "homebrew_browser";
export const HBB_LIST_FILE = "listv036.txt";

/** What a list says of one app, as its fields (only those the list gives in a form a manifest takes). */
export interface ListedApp {
  /** Where in the list: `apps/homebrew_browser/listv036.txt line 12`. */
  source: string;
  fields: Partial<
    Record<
      | "category"
      | "release_date"
      | "controllers"
      | "coder"
      | "version"
      | "display_name"
      | "short_description"
      | "long_description",
      string | number
    >
  >;
}

export interface CardList {
  /** The list as the reports name it. */
  file: string;
  /** Its apps by their folded internal name. */
  apps: Map<string, ListedApp>;
}

/** The entry of `dir` named `name` in any case (FAT ignores it), if there is one. */
function entryIn(dir: string, name: string): string | undefined {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
  const found = readdirSync(dir).find((e) => e.toLowerCase() === name);
  return found === undefined ? undefined : join(dir, found);
}

/**
 * The icon the card's Homebrew Browser downloaded for app `name` (`<apps>/homebrew_browser/temp/<name>.png`,
 * the store's own icon of it), in any case; undefined when it has none.
 */
export function findCachedIcon(appsFolder: string, name: string): string | undefined {
  const browser = entryIn(appsFolder, HBB_APP_FOLDER);
  const temp = browser === undefined ? undefined : entryIn(browser, "temp");
  const icon = temp === undefined ? undefined : entryIn(temp, `${name.toLowerCase()}.png`);
  return icon !== undefined && statSync(icon).isFile() ? icon : undefined;
}

/** The card's own list: `<apps>/homebrew_browser/listv036.txt`, in any case; undefined when it has none. */
export function findCardList(appsFolder: string): string | undefined {
  const browser = entryIn(appsFolder, HBB_APP_FOLDER);
  const list = browser === undefined ? undefined : entryIn(browser, HBB_LIST_FILE);
  return list !== undefined && statSync(list).isFile() ? list : undefined;
}

/** A string value the list gives, without the empty ones (which say nothing). */
function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Reads the list at `path` (named `file` in reports) into the apps it names. */
export function readCardList(path: string, file: string, host: string): CardList {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new UsageError(`cannot read the Homebrew Browser's list ${file}: ${(e as Error).message}`);
  }
  const apps = new Map<string, ListedApp>();
  for (const pkg of parseHbbList(bytes, host).packages) {
    const m = pkg.manifest;
    const fields: ListedApp["fields"] = {};
    // A date the list has in another form than Unix seconds is no date: the app's is guessed instead.
    if (typeof m.release_date === "number" && m.release_date > 0) fields.release_date = m.release_date;
    if (typeof m.category === "string") fields.category = m.category;
    if (typeof m.controllers === "string") fields.controllers = m.controllers;
    for (const key of ["coder", "version", "display_name", "short_description", "long_description"] as const) {
      const value = text(m[key]);
      if (value !== undefined) fields[key] = value;
    }
    const key = foldCase(pkg.name);
    // The first entry of a name is the one the Wii app shows.
    if (!apps.has(key)) apps.set(key, { source: `${file} ${pkg.source}`, fields });
  }
  return { file, apps };
}
