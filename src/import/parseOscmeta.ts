// An Open Shop Channel app manifest (contents/<name>.oscmeta, already checked by
// schemas/oscmeta.schema.json) and its package's meta.xml -> a shopfront manifest. Pure. The values
// are what the Open Shop Channel's server publishes for the app (its v4 API): the name and author of
// the oscmeta, the version of meta.xml where the oscmeta says "auto", the descriptions and release
// date of meta.xml as its `meta.set` treatments leave it. Values are carried as the oscmeta has them,
// never fixed to fit: the writer checks the manifest by the catalogue's rules and reports what breaks one.
import { PERIPHERALS, controllersOfPeripherals } from "../catalogue/todayFields.js";
import type { MetaXml } from "../packageFiles/parseMetaXml.js";
import { parseReleaseDate } from "../packageFiles/parseMetaXml.js";

/** An oscmeta file's value, as its schema guarantees it. */
export interface Oscmeta {
  information: {
    name: string;
    author: string;
    authors?: string[];
    contributors?: string[];
    category: string;
    supported_platforms?: string[];
    peripherals: string[];
    version: string;
    flags?: unknown;
    [field: string]: unknown;
  };
  source: { type: string; [field: string]: unknown };
  treatments?: { treatment: string; arguments?: string[] }[];
  [field: string]: unknown;
}

/** The oscmeta's fields that become manifest fields; any other is named as not carried over. */
const CARRIED_INFORMATION = new Set([
  "name",
  "author",
  "authors",
  "contributors",
  "category",
  "supported_platforms",
  "peripherals",
  "version",
  "flags",
]);

/** The meta.xml fields whose `meta.set` the manifest carries: the others' values come from the oscmeta. */
const CARRIED_META_SETS = new Set(["version", "release_date", "short_description", "long_description"]);

/** The categories of the Open Shop Channel's repository (its categories.json), matched ignoring case as its server does. */
const OSC_CATEGORIES = ["demos", "emulators", "games", "media", "utilities"];

/** What the Open Shop Channel's Homebrew Browser list says for an app with no short description. */
export const NO_SHORT_DESCRIPTION = "No description provided.";

/** meta.xml's version where it has none, as the Open Shop Channel's server says it. */
export const UNKNOWN_VERSION = "Unknown";

export interface OscmetaManifest {
  manifest: Record<string, unknown>;
  /** Why the app cannot become a package as it is (a JSON pointer into the oscmeta, then why); none when it can. */
  reasons: string[];
}

/** The value each `meta.set` treatment gives a meta.xml field, the last one winning, as they run in order. */
export function metaSets(oscmeta: Oscmeta): Map<string, string> {
  const sets = new Map<string, string>();
  for (const t of oscmeta.treatments ?? []) {
    const [field, value] = t.arguments ?? [];
    if (t.treatment === "meta.set" && field !== undefined && value !== undefined) sets.set(field, value);
  }
  return sets;
}

/** Whether the oscmeta asks for its package's meta.xml (its version is "auto"). */
export function wantsMetaVersion(oscmeta: Oscmeta): boolean {
  return oscmeta.information.version === "auto";
}

/**
 * What the oscmeta holds that a manifest does not carry, each named once: where the server fetches
 * the app from (shopfront fetches nothing), the treatments other than a carried `meta.set`, and
 * fields beyond those the manifest has.
 */
export function notCarriedFields(oscmeta: Oscmeta): string[] {
  const fields = ["source"];
  for (const field of Object.keys(oscmeta))
    if (field !== "information" && field !== "source" && field !== "treatments") fields.push(field);
  for (const field of Object.keys(oscmeta.information))
    if (!CARRIED_INFORMATION.has(field)) fields.push(`information.${field}`);
  const carried = (t: { treatment: string; arguments?: string[] }) =>
    t.treatment === "meta.set" && CARRIED_META_SETS.has(t.arguments?.[0] ?? "");
  if ((oscmeta.treatments ?? []).some((t) => !carried(t))) fields.push("treatments");
  return fields;
}

const PERIPHERAL_BY_DISPLAY = new Map<string, string>(PERIPHERALS.map((p) => [p.display.toLowerCase(), p.name]));

/**
 * The manifest of app `name`. `meta` is its package's meta.xml (undefined when it has none that can
 * be read); `fallbackRelease` the release date where neither a `meta.set` nor meta.xml gives one.
 */
export function oscmetaManifest(
  name: string,
  oscmeta: Oscmeta,
  meta: MetaXml | undefined,
  fallbackRelease: number,
): OscmetaManifest {
  const info = oscmeta.information;
  const reasons: string[] = [];
  const sets = metaSets(oscmeta);

  // meta.xml as the treatments leave it: a `meta.set` replaces what the package's file says.
  const fromMeta = (field: "version" | "short_description" | "long_description"): string | undefined =>
    sets.get(field) ?? meta?.[field];
  const setDate = sets.get("release_date");
  const release = setDate !== undefined ? parseReleaseDate(setDate) : meta?.release_date;

  const peripherals: string[] = [];
  info.peripherals.forEach((display, i) => {
    const peripheral = PERIPHERAL_BY_DISPLAY.get(display.toLowerCase());
    if (peripheral) peripherals.push(peripheral);
    else
      reasons.push(
        `/information/peripherals/${i} ${JSON.stringify(display)} is not a peripheral: ${PERIPHERALS.map((p) => p.display).join(", ")}`,
      );
  });
  // The Open Shop Channel's server refuses an app that names no peripheral.
  if (info.peripherals.length === 0) reasons.push("/information/peripherals names none: an app needs at least one");

  const lowerCategory = info.category.toLowerCase();
  const version = wantsMetaVersion(oscmeta) ? fromMeta("version") || UNKNOWN_VERSION : info.version;
  const releaseDate = release ?? fallbackRelease;
  const manifest: Record<string, unknown> = {
    category: OSC_CATEGORIES.includes(lowerCategory) ? lowerCategory : info.category,
    coder: info.author,
    contributors: (info.contributors ?? []).join(", "),
    controllers: controllersOfPeripherals(peripherals),
    display_name: info.name,
    internal_name: name,
    long_description: fromMeta("long_description") ?? "",
    release_date: releaseDate,
    short_description: fromMeta("short_description") || NO_SHORT_DESCRIPTION,
    updated: releaseDate,
    version,
  };
  if (peripherals.length > 0) manifest.peripherals = peripherals;
  // An empty list of authors says no more than the default (the coder), which the manifest cannot hold as [].
  if (info.authors !== undefined && info.authors.length > 0) manifest.authors = info.authors;
  // Platforms are carried as written; an empty list is the default, as the server falls back to it.
  if (info.supported_platforms !== undefined && info.supported_platforms.length > 0)
    manifest.supported_platforms = info.supported_platforms;
  if (info.flags !== undefined) manifest.flags = info.flags;
  return { manifest, reasons };
}
