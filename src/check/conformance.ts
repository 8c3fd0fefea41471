// Over 300 lines: the suite's one list of cases, row by row, with the expected answers they share.
// The conformance suite: the HTTP requests that show an API is served right, each with the answer
// it must get. One list for every target: the tests run it against the preview server, real nginx,
// Apache, Caddy and lighttpd and the edge functions; `shopfront check` runs it against a deployment.
// Sending the cases and judging the answers is runConformance.ts.
import type { ConformanceRow } from "../routes/conformanceRows.js";
import {
  aliasFilesOf,
  aliasUrlsOf,
  fallbackFor,
  fileFor,
  isSiteFile,
  isPackageFile,
  packageFileKind,
  SITE,
  SITE_TYPES,
  urlFor,
} from "../routes/routeTable.js";
import { TODAY_ENDPOINTS } from "../routes/todayRoutes.js";
import { appendAll } from "../util/appendAll.js";

type FormRow = Exclude<ConformanceRow, "content-type" | "cors" | "error-body" | "cache">;

export type Expectation =
  /** 200 with exactly this file's bytes. */
  | { kind: "file"; file: string }
  /** 200 with exactly this body (a search's answer, which no file holds). */
  | { kind: "body"; body: string }
  /** 404. */
  | { kind: "not-found" }
  /** 404, or 200 with the bytes of some API file (a server may normalize `..` into another API URL). */
  | { kind: "safe" }
  /** Refused with a 4xx of the server's choice (400, 404, 414, 431): overlong or malformed requests. */
  | { kind: "refused" }
  /** 204 (or 200) with CORS headers and no body. */
  | { kind: "preflight" }
  | { kind: "method-not-allowed" };

export interface ConformanceCase {
  row: FormRow;
  method: "GET" | "HEAD" | "OPTIONS" | "POST" | "PUT" | "DELETE";
  /** The request-target exactly as sent. */
  target: string;
  expect: Expectation;
}

/** What the suite knows of a package: its name and the values it is filtered by. */
export interface PackageFacts {
  name: string;
  category: string;
  coder: string;
}

/** What a deployment must serve: every file of the build, by path, and each host's packages in list order. */
export interface ExpectedApi {
  files: ReadonlyMap<string, string>;
  packages: ReadonlyMap<string, readonly PackageFacts[]>;
  /** The origin the v3 and v4 files name the package files at, without a trailing slash. */
  baseUrl?: string;
}

const NO_SUCH_NAME = "no-such-package-shopfront";
const TOO_LONG = "x".repeat(65);

/** Every case: each host and each package in every route form, then the edge cases. */
export function conformanceCases(api: ExpectedApi): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const add = (row: FormRow, target: string, expect: Expectation, method: ConformanceCase["method"] = "GET") =>
    cases.push({ row, method, target, expect });
  const file = (f: string): Expectation => ({ kind: "file", file: f });
  const notFound: Expectation = { kind: "not-found" };
  const safe: Expectation = { kind: "safe" };

  add("v1-hosts", urlFor("hosts"), file(fileFor("hosts")));
  add("trailing-slash", `${urlFor("hosts")}/`, file(fileFor("hosts")));
  for (const [host, packages] of api.packages) {
    const names = packages.map((p) => p.name);
    const list = file(fileFor("packages", { host }));
    add("v1-packages", urlFor("packages", { host }), list);
    add("v2-packages", urlFor("v2-packages", { host }), list);
    add("v2-packages", `${urlFor("v2-packages", { host })}?unrelated=1`, list);
    add("trailing-slash", `${urlFor("packages", { host })}/`, list);
    add("trailing-slash", `${urlFor("v2-packages", { host })}/`, list);
    for (const name of names) {
      const one = file(fileFor("package", { host, name }));
      add("v1-package", urlFor("package", { host, name }), one);
      add("v2-package", urlFor("v2-package", { host, name }), one);
    }
    const first = names[0];
    if (first !== undefined) {
      const one = file(fileFor("package", { host, name: first }));
      const v2 = urlFor("v2-packages", { host });
      add("v2-package", `${v2}?lang=en&package=${first}`, one);
      add("v2-package", `${v2}?package=${first}&sort=&x`, one);
      add("trailing-slash", `${urlFor("package", { host, name: first })}/`, one);
      add("trailing-slash", `${v2}/?package=${first}`, one);
      add("not-found", `${v2}?package=${first}&package=${first}`, notFound);
      add("methods", urlFor("package", { host, name: first }), one, "HEAD");
    }
    add("not-found", urlFor("package", { host, name: NO_SUCH_NAME }), notFound);
    add("not-found", urlFor("v2-package", { host, name: NO_SUCH_NAME }), notFound);
    add("not-found", urlFor("package", { host, name: TOO_LONG }), notFound);
    add("not-found", urlFor("v2-package", { host, name: TOO_LONG }), notFound);
    add("not-found", `${urlFor("v2-packages", { host })}?package=`, notFound);
    add("not-found", `${urlFor("v2-packages", { host })}?package`, notFound);
    add("not-found", `/v1/${host}/package`, notFound);
    add("not-found", `/v1/${host}`, notFound);
    add("traversal", `${urlFor("v2-packages", { host })}?package=../../../secret.txt`, notFound);
    add("traversal", `${urlFor("v2-packages", { host })}?package=..%2F..%2F..%2Fsecret.txt`, notFound);
    add("traversal", `${urlFor("v2-packages", { host })}?package=%2e%2e`, notFound);
    add("traversal", `${urlFor("v2-packages", { host })}?package=..`, notFound);
    add("traversal", `${urlFor("v2-packages", { host })}?package=.%2Fpackages`, notFound);
    add("traversal", `/v1/${host}/package/..%2F..%2F..%2Fsecret.txt`, safe);
    add("traversal", `/v1/${host}/package/%2e%2e%2f%2e%2e%2fhosts`, safe);
    add("traversal", `/v1/${host}/package/..%5C..%5Csecret.txt`, notFound);
    add("traversal", `/v1/${host}/package/%00`, safe);
    add("traversal", `/v1/${host}/package/%252e%252e`, notFound);
  }
  for (const host of ["no-such-host", TOO_LONG]) {
    add("not-found", urlFor("packages", { host }), notFound);
    add("not-found", urlFor("v2-packages", { host }), notFound);
    add("not-found", urlFor("category", { host, category: "games" }), notFound);
    add("not-found", urlFor("coder", { host, coder: "Fixture Coder" }), notFound);
    add("not-found", urlFor("category-coder", { host, category: "games", coder: "x" }), notFound);
    add("not-found", urlFor("v2-category", { host, category: "games" }), notFound);
    add("not-found", urlFor("v2-coder", { host, coder: "x" }), notFound);
    add("not-found", urlFor("v2-search", { host, query: "a" }), notFound);
  }
  add("v2-hosts", urlFor("v2-hosts"), file(fileFor("hosts")));
  add("trailing-slash", `${urlFor("v2-hosts")}/`, file(fileFor("hosts")));
  for (const [host, packages] of api.packages) appendAll(cases, filterCases(api, host, packages));
  for (const target of ["/v1", "/v1/", "/v3/hosts", "/v1/hosts.json", "/v1/hosts/packages", "/404.json"])
    add("not-found", target, notFound);
  cases.push(...siteCases(api));
  cases.push(...packageFileCases(api));
  cases.push(...todayCases(api));
  cases.push(...hbbCases(api));
  for (const target of [
    "/../secret.txt",
    "/v1/../../secret.txt",
    "/%2e%2e/secret.txt",
    "/v1/%2e%2e/%2e%2e/secret.txt",
    "/..%2F..%2Fsecret.txt",
  ])
    add("traversal", target, safe);
  const refused: Expectation = { kind: "refused" };
  add("traversal", "/v1/%zz/packages", safe);
  add("traversal", "/v1/%/packages", safe);
  add("traversal", "/v1/..\\..\\secret.txt", safe);
  add("traversal", `/v1/${"a".repeat(10_000)}/packages`, refused);
  add("traversal", `/${"../".repeat(2_000)}secret.txt`, refused);
  const [firstHost] = api.packages.keys();
  if (firstHost !== undefined)
    add("traversal", `${urlFor("v2-packages", { host: firstHost })}?package=${"b".repeat(10_000)}`, refused);
  add("methods", urlFor("hosts"), file(fileFor("hosts")), "HEAD");
  add("methods", urlFor("hosts"), { kind: "preflight" }, "OPTIONS");
  for (const method of ["POST", "PUT", "DELETE"] as const)
    add("methods", urlFor("hosts"), { kind: "method-not-allowed" }, method);
  return cases;
}

const TODAY_FILE = /^(?:hosts\/([^/]+)\/)?api\/(v[34])\/contents$/;

/**
 * Today's API of every host the build has it for (found by its contents file): each file at its
 * URL, the featured app or a 404 when none qualifies; unknown hosts and endpoints answer 404.
 */
function todayCases(api: ExpectedApi): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  for (const contents of [...api.files.keys()].sort()) {
    const match = TODAY_FILE.exec(contents);
    if (!match) continue;
    const row = match[2] === "v4" ? "today-v4" : "today-v3";
    const add = (target: string, expect: Expectation, method: ConformanceCase["method"] = "GET") =>
      cases.push({ row, method, target, expect });
    const folder = contents.slice(0, -"contents".length);
    for (const endpoint of TODAY_ENDPOINTS) {
      const file = `${folder}${endpoint}`;
      add(`/${file}`, api.files.has(file) ? { kind: "file", file } : { kind: "not-found" });
    }
    add(`/${contents}`, { kind: "file", file: contents }, "HEAD");
    add(`/${folder}${NO_SUCH_NAME}`, { kind: "not-found" });
    if (match[1] === undefined) add(`/hosts/${NO_SUCH_NAME}/${contents}`, { kind: "not-found" });
  }
  return cases;
}

/** The URL a file of the site answers: a folder's index page at the folder's URL, ending in `/`. */
export function siteUrlOf(file: string): string {
  return file === SITE.index ? "/" : `/${file.endsWith(`/${SITE.index}`) ? file.slice(0, -SITE.index.length) : file}`;
}

/**
 * Every file of the site (its segments are names, so its URL is its path), then what is not one:
 * unknown pages and assets, a file of another type, traversal out of a site folder. A build
 * without the site answers 404 at `/`.
 */
function siteCases(api: ExpectedApi): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const add = (target: string, expect: Expectation) => cases.push({ row: "site", method: "GET", target, expect });
  const files = [...api.files.keys()].filter(isSiteFile).sort();
  for (const file of files) add(siteUrlOf(file), { kind: "file", file });
  if (!api.files.has(SITE.index)) add("/", { kind: "not-found" });
  for (const folder of SITE.folders) {
    add(`/${folder}/no-such-page-shopfront/`, { kind: "not-found" });
    for (const extension of Object.keys(SITE_TYPES))
      add(`/${folder}/no-such-file-shopfront.${extension}`, { kind: "not-found" });
    add(`/${folder}/css`, { kind: "not-found" });
    add(`/${folder}/${NO_SUCH_NAME}.txt`, { kind: "not-found" });
    add(`/${folder}/..%2F..%2Fsecret.txt`, { kind: "safe" });
    add(`/${folder}/%2e%2e/%2e%2e/secret.txt`, { kind: "safe" });
    add(`/${folder}/../${fileFor("hosts")}`, { kind: "safe" });
  }
  for (const extension of Object.keys(SITE_TYPES)) {
    const file = files.find((f) => f.endsWith(`.${extension}`));
    if (file !== undefined)
      cases.push({ row: "site", method: "HEAD", target: siteUrlOf(file), expect: { kind: "file", file } });
  }
  return cases;
}

/**
 * Every stored package file of the build at its own URL and at each alias (HEAD too), then what
 * is not one: a package that does not exist at each URL shape, a mismatched pair of names (two
 * packages that exist), a trailing slash, a name that breaks the rule. A build without package
 * files still gets the 404s.
 */
function packageFileCases(api: ExpectedApi): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const add = (target: string, expect: Expectation, method: ConformanceCase["method"] = "GET") =>
    cases.push({ row: "package-files", method, target, expect });
  const notFound: Expectation = { kind: "not-found" };
  // A copy at an alias's path (for a host that cannot rewrite) is checked at the alias's URL.
  const copies = new Set([...api.files.keys()].flatMap(aliasFilesOf));
  const stored = [...api.files.keys()].filter((file) => isPackageFile(file) && !copies.has(file)).sort();
  const copied = [...api.files.keys()].some((file) => copies.has(file));
  for (const file of stored) {
    add(`/${file}`, { kind: "file", file });
    add(`/${file}`, { kind: "file", file }, "HEAD");
    // A host that copies answers only where a copy can stand; one that rewrites, every alias.
    for (const alias of (copied ? aliasFilesOf : aliasUrlsOf)(file)) add(`/${alias}`, { kind: "file", file });
  }
  const missing = `hbb/${NO_SUCH_NAME}/${NO_SUCH_NAME}.zip`;
  for (const file of [
    missing,
    `hbb/${NO_SUCH_NAME}/icon.png`,
    `unzipped_apps/${NO_SUCH_NAME}/apps/${NO_SUCH_NAME}/boot.dol`,
    `unzipped_apps/${NO_SUCH_NAME}/apps/${NO_SUCH_NAME}/meta.xml`,
    `hosts/${NO_SUCH_NAME}/${missing}`,
  ]) {
    add(`/${file}`, notFound);
    for (const alias of aliasUrlsOf(file)) add(`/${alias}`, notFound);
  }
  const archives = stored.filter((file) => packageFileKind(file) === "archive" && !file.startsWith("hosts/"));
  const names = archives.map((file) => file.split("/")[1]!);
  const [a, b] = names.length > 1 ? names : [names[0] ?? NO_SUCH_NAME, NO_SUCH_NAME];
  add(`/hbb/${a}/${b}.zip`, notFound);
  for (const api of ["api", "api/v3", "api/v4"]) add(`/${api}/contents/${a}/${b}.zip`, notFound);
  add(`/unzipped_apps/${a}/apps/${b}/meta.xml`, notFound);
  add(`/hbb/${a}/${a}.zip/`, notFound);
  add(`/hbb/${a}/${a}.png`, notFound);
  add(`/hbb/${TOO_LONG}/${TOO_LONG}.zip`, notFound);
  add(`/hbb/..%2F${a}/${a}.zip`, { kind: "safe" });
  add(`/api/contents/${a}/..%2F..%2F..%2Fsecret.txt`, { kind: "safe" });
  return cases;
}

/**
 * The Homebrew Browser's files at their URLs (HEAD too), its stubs with the queries the Wii app
 * sends, and what is none of them. A build without package files has none, and each URL is a 404.
 */
function hbbCases(api: ExpectedApi): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const add = (target: string, expect: Expectation, method: ConformanceCase["method"] = "GET") =>
    cases.push({ row: "hbb", method, target, expect });
  const files = [...api.files.keys()].filter((file) => packageFileKind(file)?.startsWith("hbb-") === true).sort();
  for (const file of files) {
    add(`/${file}`, { kind: "file", file });
    add(`/${file}`, { kind: "file", file }, "HEAD");
  }
  const [first] = [...api.packages.values()].flat();
  const name = first?.name ?? NO_SUCH_NAME;
  const queries: Record<string, string> = {
    "hbb/get_rating.php": `esid=0&name=${name}`,
    "hbb/update_rating.php": `esid=0&name=${name}&rating=4`,
    "hbb/apps_check_new.php": "t=1700000000",
    "hbb/hbb_download.php": `name=${name}`,
    "hbb_download.php": `name=${name}`,
  };
  for (const [file, query] of Object.entries(queries))
    add(`/${file}?${query}`, api.files.has(file) ? { kind: "file", file } : { kind: "not-found" });
  if (files.length === 0) add("/hbb/repo_list.txt", { kind: "not-found" });
  add(`/hbb/homebrew_browser/listv035.txt`, { kind: "not-found" });
  add(`/hosts/${NO_SUCH_NAME}/hbb/homebrew_browser/listv036.txt`, { kind: "not-found" });
  add(`/hbb/repo_list.txt/`, { kind: "not-found" });
  return cases;
}

/**
 * How a client that writes a coder raw into a URL sends it: osc-dl's HTTP library (Python requests)
 * and browsers percent-encode spaces, quotes, braces and non-ASCII letters, and leave the
 * characters below as they are. Undefined where the raw value cannot be sent at all: `#` starts a
 * fragment, `?` a query, and a raw `%` is read as the start of an escape.
 */
function sentRaw(value: string): string | undefined {
  if (/[#?%]/.test(value)) return undefined;
  return value.replace(/[^A-Za-z0-9\-._~!$&'()*+,/:;=@]/gu, (c) => encodeURIComponent(c));
}

/** The value the original service (Flask) read from a query value sent as `sent`: up to the first `&`, form-decoded. */
function flaskQueryValue(sent: string): string {
  return decodeURIComponent(sent.split("&")[0]!.replace(/\+/g, " "));
}

/** Hostile filter values: traversal, NUL, and the syntax of every config a value could reach. */
const HOSTILE_VALUES = [
  "../../../secret.txt",
  "..",
  "./",
  "\0",
  ";}",
  '"',
  "'",
  "\n",
  "$1",
  "%1",
  "{re.x.1}",
  "*",
  "`id`",
];

/** The category and coder routes of one host: every filter value in every form, the unknown, precedence and search. */
function filterCases(api: ExpectedApi, host: string, packages: readonly PackageFacts[]): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const add = (row: FormRow, target: string, expect: Expectation) => cases.push({ row, method: "GET", target, expect });
  const file = (f: string): Expectation => ({ kind: "file", file: f });
  const empty = file(fallbackFor("category", { host }));
  const categories = [...new Set(packages.map((p) => p.category))];
  const coders = [...new Set(packages.map((p) => p.coder))];
  const coderList = (coder: string) => (coders.includes(coder) ? file(fileFor("coder", { host, coder })) : empty);
  const v1 = (coder: string) => `/v1/${host}/coder/${coder}/packages`;
  const v2 = urlFor("v2-packages", { host });

  for (const category of categories) {
    const list = file(fileFor("category", { host, category }));
    add("v1-category", urlFor("category", { host, category }), list);
    add("trailing-slash", `${urlFor("category", { host, category })}/`, list);
    add("v2-category", urlFor("v2-category", { host, category }), list);
    add("trailing-slash", `${v2}/?category=${category}`, list);
  }
  for (const coder of coders) {
    const list = file(fileFor("coder", { host, coder }));
    const full = encodeURIComponent(coder);
    add("v1-coder", v1(full), list);
    add("trailing-slash", `${v1(full)}/`, list);
    add("v2-coder", `${v2}?coder=${full}`, list);
    add("v2-coder", `${v2}?coder=${full.replace(/%20/g, "+")}`, list);
    add("trailing-slash", `${v2}/?coder=${full}`, list);
    if (/%[0-9A-F]{2}/.test(full)) {
      const lower = full.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
      add("v1-coder", v1(lower), list);
      add("v2-coder", `${v2}?coder=${lower}`, list);
    }
    const raw = sentRaw(coder);
    if (raw !== undefined) {
      // What the original answered for the same bytes: a raw `/` splits the path (no route), a raw
      // `&` ends the query value and a raw `+` is read as a space.
      add("v1-coder", v1(raw), coder.includes("/") ? { kind: "not-found" } : list);
      add("v2-coder", `${v2}?coder=${raw}`, coderList(flaskQueryValue(raw)));
    }
  }
  for (const category of categories) {
    for (const coder of new Set(packages.filter((p) => p.category === category).map((p) => p.coder))) {
      const list = file(fileFor("category-coder", { host, category, coder }));
      add("v1-category-coder", urlFor("category-coder", { host, category, coder }), list);
      add("trailing-slash", `${urlFor("category-coder", { host, category, coder })}/`, list);
      add("v2-category-coder", urlFor("v2-category-coder", { host, category, coder }), list);
      add("v2-category-coder", `${v2}?coder=${encodeURIComponent(coder)}&category=${category}`, list);
    }
    // A coder who has packages, but none in this category.
    const elsewhere = coders.find((c) => !packages.some((p) => p.category === category && p.coder === c));
    if (elsewhere !== undefined) {
      add("filter-unknown", urlFor("category-coder", { host, category, coder: elsewhere }), empty);
      add("filter-unknown", urlFor("v2-category-coder", { host, category, coder: elsewhere }), empty);
    }
  }

  // Values no package of the host has: another case, another category, nobody, hostile text.
  const unknown = ["nobody-shopfront", ...coders.map((c) => c.toUpperCase()), ...HOSTILE_VALUES].filter(
    (c) => !coders.includes(c),
  );
  for (const coder of unknown) {
    add("filter-unknown", urlFor("v2-coder", { host, coder }), empty);
    add("filter-unknown", urlFor("v2-category-coder", { host, category: categories[0] ?? "games", coder }), empty);
  }
  for (const coder of unknown.slice(0, 3)) add("filter-unknown", urlFor("coder", { host, coder }), empty);
  for (const category of ["nosuch", "Games", "GAMES", ...HOSTILE_VALUES].filter((c) => !categories.includes(c))) {
    add("filter-unknown", urlFor("v2-category", { host, category }), empty);
  }
  for (const category of ["nosuch", "Games"].filter((c) => !categories.includes(c)))
    add("filter-unknown", urlFor("category", { host, category }), empty);
  for (const value of ["..%2F..%2F..%2Fsecret.txt", "%2e%2e", "%00", "..", "%3B%7D", "%22", "%0A"]) {
    add("traversal", v1(value), { kind: "safe" });
    add("traversal", `/v1/${host}/category/${value}/packages`, { kind: "safe" });
  }

  // Empty values count as absent; a repeated one is a 404; the original's order decides the rest.
  add("v2-packages", `${v2}?coder=`, file(fileFor("packages", { host })));
  add("v2-packages", `${v2}?coder=&category=&query=`, file(fileFor("packages", { host })));
  add("not-found", `${v2}?coder=nobody&coder=nobody`, { kind: "not-found" });
  add("not-found", `${v2}?category=games&category=games`, { kind: "not-found" });
  const first = packages[0];
  if (first !== undefined) {
    const { name, category, coder } = first;
    const byCoder = file(fileFor("coder", { host, coder }));
    const byCategory = file(fileFor("category", { host, category }));
    const full = encodeURIComponent(coder);
    add("v2-category-coder", `${v2}?package=${name}&coder=${full}`, byCoder);
    add("v2-category-coder", `${v2}?category=${category}&package=${name}`, byCategory);
    add("v2-category-coder", `${v2}?coder=&package=${name}`, file(fileFor("package", { host, name })));
    add("v2-category-coder", `${v2}?category=${category}&coder=`, byCategory);

    // A search: a case-sensitive substring of internal_name, narrowed by a category and coder when sent.
    const search = (text: string, keep: (p: PackageFacts) => boolean = () => true): Expectation => ({
      kind: "body",
      body: `[${packages
        .filter((p) => p.name.includes(text) && keep(p))
        .map((p) => api.files.get(fileFor("package", { host, name: p.name }))!)
        .join(",")}]`,
    });
    const part = name.slice(1, 3);
    add("v2-query", `${v2}?query=${part}`, search(part));
    add("v2-query", `${v2}?query=${name}`, search(name));
    add("v2-query", `${v2}?query=${part.toUpperCase()}`, search(part.toUpperCase()));
    add(
      "v2-query",
      `${v2}?query=${part}&coder=${full}`,
      search(part, (p) => p.coder === coder),
    );
    add(
      "v2-query",
      `${v2}?category=${category}&query=${part}`,
      search(part, (p) => p.category === category),
    );
    add(
      "v2-query",
      `${v2}?query=${part}&category=${category}&coder=${full}`,
      search(part, (p) => p.category === category && p.coder === coder),
    );
    add("v2-query", `${v2}?query=${part}&package=${name}`, search(part));
    add("v2-query", `${v2}?query=no-such-package-shopfront`, search("no-such-package-shopfront"));
    add("v2-query", `${v2}?query=%2e%2e%2f`, search("../"));
    add("v2-query", `${v2}/?query=${part}`, search(part));
  }
  return cases;
}
