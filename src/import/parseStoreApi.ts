// `import api`, the pure half for the API the Open Shop Channel serves today (v4, and v3 before it):
// `/api/v4/information` and `/api/v4/contents` turned into one host's packages, each with its archive
// to fetch. The API has one repository, so it becomes one host. Values are passed on as given (the
// writer checks them by the catalogue's rules); what the files give (zip_size, extracted,
// package_type) is left out of the manifest, since the archive comes with it and the build derives
// them. What the API cannot say (`updated`, a rating) takes the value the Open Shop Channel's own
// list takes: `updated` is the release date.
import { FILES_FIELDS, TODAY_FIELDS, type HostInfo, type HostsFile } from "../catalogue/fields.js";
import {
  controllersOfPeripherals,
  DEFAULT_PLATFORMS,
  PERIPHERALS,
  peripheralsOfControllers,
} from "../catalogue/todayFields.js";
import { FailureError } from "../util/errors.js";
import type { ArchiveSource } from "./downloadArchive.js";
import { describeValue, isObject, type HostPackages } from "./parseApi.js";

export type StoreApiVersion = "v4" | "v3";

/** The keys of a v4 and a v3 app object that are read, or derived by the build from the archive. */
const READ_KEYS: Record<StoreApiVersion, Set<string>> = {
  v4: new Set([
    "slug",
    "name",
    "author",
    "authors",
    "category",
    "contributors",
    "description",
    "downloads",
    "assets",
    "flags",
    "package_type",
    "peripherals",
    "release_date",
    "subdirectories",
    "supported_platforms",
    "uncompressed_size",
    "version",
  ]),
  v3: new Set([
    "slug",
    "name",
    "author",
    "category",
    "contributors",
    "description",
    "file_size",
    "flags",
    "package_type",
    "peripherals",
    "release_date",
    "subdirectories",
    "supported_platforms",
    "url",
    "version",
  ]),
};

/**
 * The host the API's `/information` describes, as hosts.json declares it: `id` chosen by the user,
 * the API's name and description, and the host name of the URL it was read from.
 */
export function parseInformation(json: unknown, where: string, id: string, hostName: string): HostsFile {
  if (!isObject(json))
    throw new FailureError(`${where}: expected the repository's information, an object, got ${describeValue(json)}`);
  const field = (key: string): string => {
    const value = json[key];
    if (typeof value !== "string")
      throw new FailureError(`${where}: "${key}" is ${describeValue(value)}, not a string`);
    return value;
  };
  const host: HostInfo = { id, name: field("name"), host: hostName, description: field("description") };
  return { default: id, hosts: [host] };
}

/** `value` if it is a list of strings, else undefined. */
function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;
}

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * `controllers` from the app's peripherals (v4's names, v3's display names), and `peripherals` too
 * when the letters' default would not give back the same list in the same order. A value the table
 * does not know is passed on as `peripherals`, for the rules to report.
 */
function peripheralFields(value: unknown, version: StoreApiVersion): Record<string, unknown> {
  const list = strings(value);
  const names = list?.map(
    (p) => PERIPHERALS.find((entry) => (version === "v4" ? entry.name : entry.display) === p)?.name,
  );
  if (!names || names.some((n) => n === undefined)) return { controllers: "", peripherals: value };
  const controllers = controllersOfPeripherals(names as string[]);
  return sameList(names, peripheralsOfControllers(controllers)) ? { controllers } : { controllers, peripherals: names };
}

/** The archive of an app object: v4's `assets.archive`, v3's `url.zip` and `file_size.zip_compressed`. */
function archiveOf(item: Record<string, unknown>, version: StoreApiVersion, where: string): ArchiveSource | string {
  const found = archiveFields(item, version);
  if (typeof found === "string") return found;
  // A URL relative to the answer (`/hbb/pong/pong.zip`) is read as a browser reads it; one that is
  // no URL even so is passed on, for the fetcher to refuse with its reason.
  return URL.canParse(found.url, where) ? { ...found, url: new URL(found.url, where).href } : found;
}

function archiveFields(item: Record<string, unknown>, version: StoreApiVersion): ArchiveSource | string {
  if (version === "v4") {
    const archive = isObject(item.assets) ? item.assets.archive : undefined;
    if (!isObject(archive) || typeof archive.url !== "string") return "it has no archive URL (assets.archive.url)";
    const { size, hash } = archive;
    if (size !== undefined && !(Number.isSafeInteger(size) && (size as number) > 0))
      return `its archive size (assets.archive.size) is ${JSON.stringify(size)}, not a number of bytes`;
    if (hash !== undefined && !(typeof hash === "string" && /^[0-9a-fA-F]{32}$/.test(hash)))
      return `its archive hash (assets.archive.hash) is ${JSON.stringify(hash)}, not an MD5 in hex`;
    return {
      url: archive.url,
      ...(size !== undefined ? { size: size as number } : {}),
      ...(hash !== undefined ? { md5: (hash as string).toLowerCase() } : {}),
    };
  }
  const url = isObject(item.url) ? item.url.zip : undefined;
  if (typeof url !== "string") return "it has no archive URL (url.zip)";
  const size = isObject(item.file_size) ? item.file_size.zip_compressed : undefined;
  if (size !== undefined && !(Number.isSafeInteger(size) && (size as number) > 0))
    return `its archive size (file_size.zip_compressed) is ${JSON.stringify(size)}, not a number of bytes`;
  return { url, ...(size !== undefined ? { size: size as number } : {}) };
}

/** The apps of `/api/v4/contents` (or v3's), as packages of `host` with their archives. */
export function parseContents(json: unknown, host: string, where: string, version: StoreApiVersion): HostPackages {
  if (!Array.isArray(json)) throw new FailureError(`${where}: expected a list of apps, got ${describeValue(json)}`);
  const result: HostPackages = { packages: [], skipped: [], notCarriedOver: new Map() };
  json.forEach((item: unknown, index) => {
    const source = `${where} [${index}]`;
    if (!isObject(item)) {
      result.skipped.push({ source, host, reasons: [`${describeValue(item)}, not an app object`] });
      return;
    }
    const name = item.slug;
    if (typeof name !== "string") {
      const got = Object.hasOwn(item, "slug") ? describeValue(name) : "missing";
      result.skipped.push({ source, host, reasons: [`its slug is ${got}, not a string`] });
      return;
    }
    const archive = archiveOf(item, version, where);
    if (typeof archive === "string") {
      result.skipped.push({ source, host, name, reasons: [archive] });
      return;
    }
    const description = isObject(item.description) ? item.description : {};
    const contributors = strings(item.contributors);
    const manifest: Record<string, unknown> = {
      category: item.category,
      coder: item.author,
      contributors: contributors ? contributors.join(", ") : item.contributors,
      ...peripheralFields(item.peripherals, version),
      display_name: item.name,
      internal_name: name,
      long_description: description.long,
      release_date: item.release_date,
      short_description: description.short,
      updated: item.release_date,
      version: item.version,
    };
    // The new fields only where they are not what the manifest's defaults give.
    const authors = version === "v4" ? item.authors : undefined;
    if (authors !== undefined && !(strings(authors) && sameList(authors as string[], [item.author])))
      manifest.authors = authors;
    const platforms = item.supported_platforms;
    if (platforms !== undefined && !(strings(platforms) && sameList(platforms as string[], DEFAULT_PLATFORMS)))
      manifest.supported_platforms = platforms;
    // The Open Shop Channel's server writes flags as its Java names (WRITES_TO_NAND); the manifest's
    // are lower case.
    const flags = strings(item.flags)?.map((f) => f.toLowerCase()) ?? item.flags;
    if (flags !== undefined && !(Array.isArray(flags) && flags.length === 0)) manifest.flags = flags;
    for (const key of Object.keys(manifest)) if (manifest[key] === undefined) delete manifest[key];
    for (const key of Object.keys(item))
      if (!READ_KEYS[version].has(key)) result.notCarriedOver.set(key, (result.notCarriedOver.get(key) ?? 0) + 1);
    result.packages.push({
      host,
      name,
      source,
      manifest,
      archive,
      ...(version === "v4" && Object.hasOwn(item, "downloads")
        ? { stats: { downloads: item.downloads as number } }
        : {}),
    });
  });
  return result;
}

/**
 * A host's packages as the first API gives them, with what its v4 (or v3) apps add: each one's
 * archive (its manifest then leaves out what the files give) and the fields the first API has not.
 * An app the first API does not list, or whose archive cannot be read, adds nothing, and an app
 * whose archive states no hash adds no archive: the first API's package is imported as it is.
 */
export function withStoreFields(first: HostPackages, store: HostPackages): HostPackages {
  const apps = new Map(store.packages.map((p) => [p.name, p]));
  const packages = first.packages.map((pkg) => {
    const app = apps.get(pkg.name);
    if (!app) return pkg;
    const manifest = { ...pkg.manifest };
    for (const field of Object.keys(TODAY_FIELDS))
      if (Object.hasOwn(app.manifest, field)) manifest[field] = app.manifest[field];
    // The app's peripherals say otherwise than the package's letters: they are kept as the app has them.
    if (!Object.hasOwn(manifest, "peripherals") && app.manifest.controllers !== manifest.controllers)
      manifest.peripherals = peripheralsOfControllers(String(app.manifest.controllers));
    // An archive without a hash is one the build has no files of: it points where the Homebrew
    // Browser layout would put it on the host's own server, which need not exist.
    if (!app.archive || !("md5" in app.archive)) return { ...pkg, manifest };
    for (const field of FILES_FIELDS) delete manifest[field];
    return { ...pkg, manifest, archive: app.archive };
  });
  // What else v4 has (the shop's title details) is what the build writes of its own: nothing lost.
  return { packages, skipped: first.skipped, notCarriedOver: first.notCarriedOver };
}
