// Over 350 lines: today's v4 and v3 objects, their information and featured files, which derive from
// one another and must change together.
// The API of today's clients, as the Open Shop Channel's server shapes it: /api/v4/information,
// /api/v4/contents, /api/v4/featured-app and their v3 forms (docs/api.md, "Today's clients"). A
// package's v4 object is the one source: its v3 object, the host's information and its featured
// app are all worked out from the v4 objects, so a rebuild can splice them as the live files hold them.
import { createHash } from "node:crypto";
import type { HostInfo, Manifest, PackageStats } from "../catalogue/fields.js";
import { displayNameOf, todayValues, type Peripheral } from "../catalogue/todayFields.js";
import type { DerivedFiles } from "../packageFiles/inspectPackageZip.js";
import { packageFilePaths, packageFilesPrefix, type BinaryName } from "../routes/packageFileLayout.js";
import { escapeNonAscii } from "../util/asciiJson.js";
import { checkMemory } from "../util/memory.js";

/** What today's clients are told of one package, before its URLs are known (they depend on the build's base URL). */
export interface TodayPackage {
  slug: string;
  name: string;
  author: string;
  authors: readonly string[];
  category: string;
  contributors: readonly string[];
  short: string;
  long: string;
  downloads: number;
  flags: readonly string[];
  package_type: string;
  peripherals: readonly Peripheral[];
  release_date: number;
  subdirectories: readonly string[];
  supported_platforms: readonly string[];
  uncompressed_size: number;
  version: string;
  /** The manifest's zip_size: the archive's size when the build has no files of the package. */
  zipSize: number;
  /** Present for a package with files beside its manifest: what the build derived from them. */
  files?: {
    archive: { size: number; md5: string; sha256: string };
    binary: { name: BinaryName; size: number; md5: string; sha256: string };
    /** Bytes of the icon served (the placeholder's when the package has none). */
    icon: number;
  };
}

/** A package's today values: from its manifest (merged with what its files derive), its stats and its files. */
export function todayPackageOf(
  manifest: Manifest,
  stats: PackageStats | undefined,
  files?: { derived: DerivedFiles; iconSize: number },
): TodayPackage {
  const today = todayValues(manifest);
  const derived = files?.derived;
  return {
    slug: manifest.internal_name,
    name: manifest.display_name,
    author: manifest.coder,
    authors: today.authors,
    category: manifest.category,
    contributors: today.contributors,
    short: manifest.short_description,
    long: manifest.long_description,
    downloads: stats?.downloads ?? 0,
    flags: today.flags,
    package_type: manifest.package_type,
    peripherals: today.peripherals,
    release_date: manifest.release_date,
    subdirectories: derived?.subdirectories ?? [],
    supported_platforms: today.supported_platforms,
    uncompressed_size: manifest.extracted,
    version: manifest.version,
    zipSize: manifest.zip_size,
    ...(derived && files
      ? {
          files: {
            archive: { size: derived.zip_size, md5: derived.zip_md5, sha256: derived.zip_sha256 },
            binary: {
              name: derived.package_type === "elf" ? "boot.elf" : "boot.dol",
              size: derived.binary.size,
              md5: derived.binary.md5,
              sha256: derived.binary.sha256,
            },
            icon: files.iconSize,
          },
        }
      : {}),
  };
}

/** Where a build's files are served from, and where each host's package files are when the build has none. */
export interface TodayUrls {
  /** The origin the build is deployed at, without a trailing slash: `http://hbb1.example.org`. */
  baseUrl: string;
  defaultHost: string;
  hosts: readonly HostInfo[];
}

/** The base URL a build uses unless the maintainer sets one: plain HTTP (the Wii has no TLS) to the default host. */
export function defaultBaseUrl(hosts: readonly HostInfo[], defaultHost: string): string {
  const host = hosts.find((h) => h.id === defaultHost) ?? hosts[0];
  return `http://${host?.host ?? "localhost"}`;
}

type Asset = { url: string; hash?: string; size?: number; sha256?: string };

/** An asset as the OSC writes it: `hash` only when known, `size` left out when 0. */
function asset(url: string, size: number, hashes?: { md5: string; sha256: string }): Asset {
  return {
    url,
    ...(hashes ? { hash: hashes.md5 } : {}),
    ...(size !== 0 ? { size } : {}),
    ...(hashes ? { sha256: hashes.sha256 } : {}),
  };
}

const SHOP = { contents_size: 0, title_id: "", inodes: 0, title_version: 0, tmd_size: 0 };

/**
 * The v4 object of a package on `host`. A package with files points at the files this build stores
 * (at the base URL); one without points where the Homebrew Browser layout puts them on its host's
 * own server (`http://<host>/hbb/...`), with the archive's size from the manifest and no hashes.
 */
export function v4Object(pkg: TodayPackage, host: string, urls: TodayUrls): Record<string, unknown> {
  const binary: BinaryName = pkg.files?.binary.name ?? (pkg.package_type === "elf" ? "boot.elf" : "boot.dol");
  const paths = pkg.files
    ? packageFilePaths(host, urls.defaultHost, pkg.slug, binary)
    : packageFilePaths(host, host, pkg.slug, binary);
  const origin = pkg.files ? urls.baseUrl : `http://${urls.hosts.find((h) => h.id === host)!.host}`;
  const url = (path: string) => `${origin}/${path}`;
  const files = pkg.files;
  return {
    slug: pkg.slug,
    name: pkg.name,
    author: pkg.author,
    authors: pkg.authors,
    category: pkg.category,
    contributors: pkg.contributors,
    description: { short: pkg.short, long: pkg.long },
    downloads: pkg.downloads,
    assets: {
      archive: asset(url(paths.archive), files?.archive.size ?? pkg.zipSize, files?.archive),
      binary: asset(url(paths.binary), files?.binary.size ?? 0, files?.binary),
      icon: asset(url(paths.icon), files?.icon ?? 0),
      meta: asset(url(paths.meta), 0),
    },
    // The OSC's server writes its flags as Java names, and clients read them so (TinyWiiBackupManager).
    flags: pkg.flags.map((f) => f.toUpperCase()),
    package_type: pkg.package_type,
    peripherals: pkg.peripherals,
    release_date: pkg.release_date,
    shop: SHOP,
    subdirectories: pkg.subdirectories,
    supported_platforms: pkg.supported_platforms,
    uncompressed_size: pkg.uncompressed_size,
    version: pkg.version,
  };
}

/** The shape of a v4 object as far as the other files read it back. */
interface V4 {
  slug: string;
  name: string;
  author: string;
  authors: string[];
  category: string;
  contributors: string[];
  description: { short: string; long: string };
  assets: Record<"archive" | "binary" | "icon" | "meta", Asset>;
  flags: string[];
  package_type: string;
  peripherals: Peripheral[];
  release_date: number;
  shop: typeof SHOP;
  subdirectories: string[];
  supported_platforms: string[];
  uncompressed_size: number;
  version: string;
}

/** The v3 object of a package, from its v4 object: one author line, sizes and URLs apart, peripherals by display name. */
export function v3Object(v4: Record<string, unknown>): Record<string, unknown> {
  const app = v4 as unknown as V4;
  return {
    slug: app.slug,
    name: app.name,
    author: [...new Set([app.author, ...app.authors])].join(", "),
    category: app.category,
    contributors: app.contributors,
    description: app.description,
    file_size: {
      binary: app.assets.binary.size ?? 0,
      icon: app.assets.icon.size ?? 0,
      zip_compressed: app.assets.archive.size ?? 0,
      zip_uncompressed: app.uncompressed_size,
    },
    flags: app.flags,
    package_type: app.package_type,
    peripherals: app.peripherals.map(displayNameOf),
    release_date: app.release_date,
    shop: app.shop,
    subdirectories: app.subdirectories,
    supported_platforms: app.supported_platforms,
    url: { icon: app.assets.icon.url, zip: app.assets.archive.url },
    version: app.version,
  };
}

/** The categories the information lists: the OSC's five, and themes on a host that has some. */
const CATEGORIES = [
  { name: "demos", display_name: "Demos", singular: "demo", plural: "demos" },
  { name: "emulators", display_name: "Emulators", singular: "emulator", plural: "emulators" },
  { name: "games", display_name: "Games", singular: "game", plural: "games" },
  { name: "media", display_name: "Media", singular: "media application", plural: "media applications" },
  { name: "utilities", display_name: "Utilities", singular: "utility", plural: "utilities" },
  { name: "themes", display_name: "Themes", singular: "theme", plural: "themes" },
];

const PLATFORMS = [
  { name: "wii", display_name: "Wii" },
  { name: "vwii", display_name: "vWii" },
  { name: "wii_mini", display_name: "Wii Mini" },
];

/** A host's information object: its name and description, how many apps it has, the categories and platforms. */
export function informationObject(host: HostInfo, count: number, hasThemes: boolean): Record<string, unknown> {
  return {
    name: host.name,
    provider: host.name,
    description: host.description,
    git_url: "Unknown",
    available_apps_count: count,
    available_categories: CATEGORIES.filter((c) => c.name !== "themes" || hasThemes),
    available_platforms: PLATFORMS,
  };
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Whether a package may be the featured app, by the OSC's rule: a short description, not a demo,
 * played with a Wii Remote.
 */
export function isFeaturedCandidate(pkg: Pick<TodayPackage, "short" | "category" | "peripherals">): boolean {
  return pkg.short.trim() !== "" && pkg.category !== "demos" && pkg.peripherals.includes("wii_remote");
}

/**
 * Which of a host's `candidates` (isFeaturedCandidate, in the host's order) is the featured app: the
 * OSC's nightly random pick made a pick by the day (UTC) of the build, so the same day builds the
 * same files and a daily rebuild moves it on. Undefined when no app qualifies: the route answers 404.
 */
export function featuredPick(candidates: number, nowMs: number): number | undefined {
  if (candidates === 0) return undefined;
  const seed = createHash("sha256")
    .update(`featured ${dayOf(nowMs)}`)
    .digest()
    .readUInt32BE(0);
  return seed % candidates;
}

/** The UTC day of a time: a rebuild on another day than the last build picks the featured app again. */
export function dayOf(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS);
}

/** The files of today's API of a host, as paths relative to the build's root. */
export function todayFiles(host: string, defaultHost: string) {
  const prefix = packageFilesPrefix(host, defaultHost);
  return {
    v4: {
      information: `${prefix}api/v4/information`,
      contents: `${prefix}api/v4/contents`,
      featured: `${prefix}api/v4/featured-app`,
    },
    v3: {
      information: `${prefix}api/v3/information`,
      contents: `${prefix}api/v3/contents`,
      featured: `${prefix}api/v3/featured-app`,
    },
  };
}

const json = (value: unknown) => escapeNonAscii(JSON.stringify(value));

/** A package's fragments in today's API: its v4 and v3 objects as JSON (ASCII), and whether it may be featured. */
export interface TodayFragments {
  v4: string;
  v3: string;
  featured: boolean;
}

/** The one renderer of a package's today fragments, for the full build and the rebuild alike. */
export function renderTodayFragments(pkg: TodayPackage, host: string, urls: TodayUrls): TodayFragments {
  checkMemory("rendering the v3 and v4 API");
  const v4 = v4Object(pkg, host, urls);
  return { v4: json(v4), v3: json(v3Object(v4)), featured: isFeaturedCandidate(pkg) };
}

/** A host's information file (the same for v4 and v3). */
export function renderInformation(host: HostInfo, count: number, hasThemes: boolean): string {
  return json(informationObject(host, count, hasThemes));
}

/** Where a build's today URLs point, from its hosts, its default host and its base URL. */
export function todayUrlsOf(hosts: readonly HostInfo[], defaultHost: string, baseUrl: string | undefined): TodayUrls {
  return { baseUrl: (baseUrl ?? defaultBaseUrl(hosts, defaultHost)).replace(/\/+$/, ""), defaultHost, hosts };
}
