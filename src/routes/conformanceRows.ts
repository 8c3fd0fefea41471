// The rows of a conformance report, by id: what the conformance suite (check/) checks and what a host
// (targets/) may declare it cannot serve. Both name rows by these ids, so they live below either.
/** The rows of a conformance report: route forms, then properties of every response. */
export const CONFORMANCE_ROWS = {
  "v1-hosts": "GET /v1/hosts",
  "v2-hosts": "GET /v2/hosts",
  "v1-packages": "GET /v1/<host>/packages",
  "v1-package": "GET /v1/<host>/package/<name>",
  "v2-package": "GET /v2/<host>/packages?package=<name>",
  "v2-packages": "GET /v2/<host>/packages",
  "v1-category": "GET /v1/<host>/category/<category>/packages",
  "v1-coder": "GET /v1/<host>/coder/<coder>/packages, each way clients write a coder",
  "v1-category-coder": "GET /v1/<host>/category/<category>/coder/<coder>/packages",
  "v2-category": "GET /v2/<host>/packages?category=<category>",
  "v2-coder": "GET /v2/<host>/packages?coder=<coder>, each way clients write a coder",
  "v2-category-coder": "GET /v2/<host>/packages?category=<category>&coder=<coder>, and which parameter wins",
  "v2-query": "GET /v2/<host>/packages?query=<text>, alone and with a category and coder",
  "today-v4":
    "GET /api/v4/information, /api/v4/contents, /api/v4/featured-app (another host under /hosts/<host>/); 404 for a featured app when none qualifies",
  "today-v3": "GET /api/v3/information, /api/v3/contents, /api/v3/featured-app (another host under /hosts/<host>/)",
  "filter-unknown": "[] for a category or coder no package of the host has, hostile values included",
  "trailing-slash": "every route with a trailing slash, no redirect",
  "not-found": "404 for unknown hosts, packages, bad or repeated names",
  traversal: "traversal attempts: 404 or an API file, never anything else",
  methods: "HEAD like GET; OPTIONS 204 with CORS; POST, PUT, DELETE 405",
  "content-type": "Content-Type: application/json on every API answer and 404, the site's type on its files",
  cors: "Access-Control-Allow-Origin: * on every answer to a well-formed request",
  "error-body": "JSON error body on every 404 to a well-formed request",
  "package-files":
    "the package files (zip, icon, boot.dol/elf, meta.xml) at every URL clients and guides use, typed, byte for byte; 404 for a missing package or a mismatched pair",
  cache:
    "Cache-Control max-age from the route table: on a package file an icon 1 day, the rest 4 hours; on the API and the site 10 minutes",
  hbb: "the Homebrew Browser's files (repo_list.txt, each host's listv036.txt at both URLs, temp_files.zip) typed and byte for byte over plain HTTP, and its stubs whatever their query",
  site: "the browse site and the OpenAPI document: `/`, every page and asset, typed by extension; 404 for others",
} as const;

export type ConformanceRow = keyof typeof CONFORMANCE_ROWS;
