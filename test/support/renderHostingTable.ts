// The hosting table of docs/hosting.md, rendered from the target list: what each host serves (the API's
// endpoints, the browse site, the Homebrew Browser's files over plain HTTP), what it sends, what it cannot do and why, and how to set it up. A test
// holds that page to exactly this output, so adding or changing a target changes the table.
import { CONFORMANCE_ROWS, type ConformanceRow } from "../../src/routes/conformanceRows.js";
import { TARGETS } from "../../src/targets/index.js";
import type { Target } from "../../src/targets/target.js";

const ENDPOINT_ROWS: readonly ConformanceRow[] = [
  "v1-hosts",
  "v2-hosts",
  "v1-packages",
  "v1-package",
  "v2-package",
  "v2-packages",
  "v1-category",
  "v1-coder",
  "v1-category-coder",
  "v2-category",
  "v2-coder",
  "v2-category-coder",
  "v2-query",
  "today-v4",
  "today-v3",
];

/** Plain text in a table cell: no column breaks, and `<host>` shown rather than taken for HTML. */
function text(value: string): string {
  return value.replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function endpoints(target: Target): string {
  const served = ENDPOINT_ROWS.filter((row) => !(row in target.cannot));
  const missing = ENDPOINT_ROWS.filter((row) => row in target.cannot);
  const list = (rows: readonly ConformanceRow[]) => rows.map((row) => text(CONFORMANCE_ROWS[row])).join("<br>");
  if (missing.length === 0) return "all";
  if (served.length === 0) return "none";
  return missing.length <= served.length ? `all but<br>${list(missing)}` : list(served);
}

function sends(target: Target, row: ConformanceRow): string {
  return row in target.cannot ? "no" : "yes";
}

function cannot(target: Target): string {
  const rows = Object.entries(target.cannot) as [ConformanceRow, string][];
  const lines = rows.map(([row, why]) => `**${text(CONFORMANCE_ROWS[row])}**: ${text(why)}`);
  // What only its deploy files (a .htaccess) cannot do: the rows, grouped by reason.
  const byReason = new Map<string, ConformanceRow[]>();
  for (const [row, why] of Object.entries(target.cannotFromDeployFiles ?? {}) as [ConformanceRow, string][])
    byReason.set(why, [...(byReason.get(why) ?? []), row]);
  for (const [why, group] of byReason)
    lines.push(
      `**configured by its deploy files alone, ${group.map((row) => text(CONFORMANCE_ROWS[row])).join("; ")}**: ${text(why)}`,
    );
  return lines.length === 0 ? "nothing" : lines.join("<br>");
}

/** How the package files answer at their aliases' URLs. */
function packageFiles(target: Target): string {
  return target.packageFiles === "rewrite"
    ? "by rewrite"
    : `from copies, which \`build --target ${target.id}\` writes (hard links: no extra disk), but not under /api/v3/contents/ and /api/v4/contents/, where today's contents lists stand`;
}

/**
 * The Homebrew Browser's surface: whether the host can serve it over plain HTTP, and how the stubs
 * answer (every host serves them as files, so hbb_download.php is an empty 200, never the OSC's 204).
 */
function hbb(target: Target): string {
  return `${text(target.hbb)}; hbb_download.php answers an empty 200`;
}

export function renderHostingTable(): string {
  const lines = [
    "| host | endpoints served | browse site | package files | Homebrew Browser (`/hbb/` over plain HTTP) | `Content-Type` (JSON for the API, the site's by extension) | `Access-Control-Allow-Origin: *` | `Cache-Control` (the route table's: icons a day, other package files four hours, the rest ten minutes) | cannot, and why | set up |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...TARGETS.map(
      (t) =>
        `| ${text(t.title)} | ${endpoints(t)} | ${sends(t, "site")} | ${packageFiles(t)} | ${hbb(t)} | ${sends(t, "content-type")} | ${sends(t, "cors")} | ${sends(t, "cache")} | ${cannot(t)} | ${t.usage} |`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}
