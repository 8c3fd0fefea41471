// The Homebrew Browser's surface (the Wii app, OpenShopChannel/OSCHomebrewBrowser, as the Open Shop
// Channel's server answers it; docs/hbb-list-format.md): the repository list, each host's list and
// icon archive, and the four stubs the app calls. Every one is a plain file of the build at its own
// URL, copies included (`/hbb/listv036.txt` beside `/hbb/homebrew_browser/listv036.txt`), so that a
// host that can neither rewrite nor answer code serves them all as they are; a stub answers the same
// whatever its query string. The route table (routeTable.ts) serves them beside the package files.

/** What a file of the surface is, which fixes its type and cache lifetime. */
export type HbbFileKind = "hbb-text" | "hbb-icons";

/** The folder of a host's surface, as a template relative to the host's prefix (`""` or `hosts/{host}/`). */
export const HBB_FOLDER = "hbb/";

/** A host's files, relative to its prefix (packageFileLayout.ts's `hosts/<host>/` or the root). */
export const HBB_HOST_FILES = {
  /** The list, where repo_list.txt points. */
  list: "hbb/homebrew_browser/listv036.txt",
  /** The same list at the shorter URL the Open Shop Channel also answers. */
  shortList: "hbb/listv036.txt",
  /** Every icon of the host's packages, each `<name>.png` at the archive's root. */
  icons: "hbb/homebrew_browser/temp_files.zip",
} as const;

/** The repository list: at the root only, naming every host. */
export const HBB_REPO_LIST = "hbb/repo_list.txt";

/**
 * The stubs, at the root only: what each answers, whatever its query. The app asks the domain it
 * was built for at these absolute paths, whichever repository it shows (net_requests.c's
 * create_repo_url). `hbb_download.php` answers empty: the Open Shop Channel sends 204, a static file
 * can only be empty with 200, which the app reads the same (it ignores the answer).
 */
export const HBB_STUBS: Readonly<Record<string, string>> = {
  "hbb/get_rating.php": "5",
  "hbb/update_rating.php": "5",
  "hbb/apps_check_new.php": "0 0",
  "hbb/hbb_download.php": "",
  "hbb_download.php": "",
};

export interface HbbRoute {
  /** The URL path; `{host}` is a host id. */
  path: string;
  /** The file that answers it: the path itself, relative to the build's root. */
  file: string;
  kind: HbbFileKind;
  /** What it is, for documentation. */
  what: string;
}

/** The host prefix of the default host and of every other one (packageFileLayout.ts's HOST_FILES_PREFIX). */
const PREFIXES = ["", "hosts/{host}/"] as const;

function route(file: string, kind: HbbFileKind, what: string): HbbRoute {
  return { path: `/${file}`, file, kind, what };
}

/** Every URL of the surface, each answered by the file of the same path. */
export const HBB_ROUTES: readonly HbbRoute[] = [
  route(HBB_REPO_LIST, "hbb-text", "The Homebrew Browser's repository list: every host"),
  ...PREFIXES.flatMap((prefix) => {
    const whose = prefix === "" ? "the default host's" : "a host's";
    return [
      route(`${prefix}${HBB_HOST_FILES.list}`, "hbb-text", `The Homebrew Browser's list of ${whose} packages`),
      route(`${prefix}${HBB_HOST_FILES.shortList}`, "hbb-text", `The Homebrew Browser's list of ${whose} packages`),
      route(`${prefix}${HBB_HOST_FILES.icons}`, "hbb-icons", `Every icon of ${whose} packages, as <name>.png`),
    ];
  }),
  ...Object.entries(HBB_STUBS).map(([file, body]) =>
    route(file, "hbb-text", `A Homebrew Browser stub: ${body === "" ? "empty" : `\`${body}\``}, whatever the query`),
  ),
];
