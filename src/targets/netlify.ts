// Netlify: `_redirects` and `_headers` in the deploy root.
//
// Netlify's placeholders cannot check a value against a pattern: `package=:name` would rewrite
// `?package=../../hosts` into a path. So every rule is explicit: one per host and package, written
// from the catalogue's validated names, and a value that no rule names gets the 404. Every rewrite
// is forced (`200!`), so a file can never shadow it (hosting.md, trap 3), and Netlify matches a rule
// with or without a trailing slash, so each rule serves both forms. The cost is the number of rules:
// 2 per package, 3 per host and 3 more. Netlify's engine tries them in order (as netlify-redirector,
// matching the last of 10,009 rules took 97 ms here, linear in the count), and Netlify's docs ask for
// placeholders from 10,000 rules on, which cannot check names: past that, the target refuses.
import { UsageError } from "../util/errors.js";
import { assertValidName } from "../catalogue/names.js";
import { fileFor, NOT_FOUND_FILE, pathFor, routePaths, type RouteParams } from "../routes/routeTable.js";
import { paramOf } from "../routes/routeSyntax.js";
import { VERSION } from "../util/version.js";
import { renderHeadersFile } from "./shared/headersFile.js";
import { banner, type CatalogueNames, type Target, type TargetFile } from "./target.js";

/** The host's parameters with each of its package names added. */
function withPackages(host: RouteParams, names: CatalogueNames): RouteParams[] {
  return (names.packages.get(host.host ?? "") ?? []).map((name) => ({ ...host, name }));
}

/** Netlify's threshold for recommending placeholders over explicit rules. */
export const MAX_NETLIFY_RULES = 10_000;

function rule(from: string, to: string, status: string, query?: string): string {
  return [from, ...(query ? [query] : []), to, status].join("  ");
}

export function renderNetlifyRedirects(names: CatalogueNames): string {
  const rules: string[] = [];
  for (const path of routePaths((r) => ["hosts", "packages", "package", "v2-package", "v2-packages"].includes(r.id))) {
    const takes = path.segments.map(paramOf);
    const hosts: RouteParams[] = takes.includes("host") ? names.hosts.map((host) => ({ host })) : [{}];
    for (const host of hosts) {
      for (const {
        id,
        query: [query],
      } of path.queries) {
        if (!query) continue;
        for (const params of withPackages(host, names)) {
          rules.push(
            rule(
              pathFor(id, params),
              `/${fileFor(id, params)}`,
              "200!",
              `${query.key}=${assertValidName(params[query.param] ?? "", query.param)}`,
            ),
          );
        }
        // Any other value, a bad name included: the 404, never a path built from it.
        rules.push(rule(pathFor(id, host), `/${NOT_FOUND_FILE}`, "404!", `${query.key}=:value`));
      }
      if (path.plain) {
        const { id } = path.plain;
        const all = takes.includes("name") ? withPackages(host, names) : [host];
        for (const params of all) rules.push(rule(pathFor(id, params), `/${fileFor(id, params)}`, "200!"));
      }
    }
  }
  // 404.json is a file of the build, but no route.
  rules.push(rule(`/${NOT_FOUND_FILE}`, `/${NOT_FOUND_FILE}`, "404!"), rule("/*", `/${NOT_FOUND_FILE}`, "404"));
  if (rules.length > MAX_NETLIFY_RULES) {
    throw new UsageError(
      `the catalogue needs ${rules.length} Netlify rules (2 per package), more than the ${MAX_NETLIFY_RULES} from which Netlify asks for placeholders, which cannot check names; serve it with the cloudflare or cloudfront target`,
    );
  }
  return [
    banner("#", "netlify", VERSION),
    "# Netlify reads it from the deploy root. First match wins; 200! rewrites even where a file exists.",
    ...rules,
    "",
  ].join("\n");
}

function netlifyFiles(names: CatalogueNames): TargetFile[] {
  return [
    { path: "_redirects", content: renderNetlifyRedirects(names) },
    { path: "_headers", content: renderHeadersFile() },
  ];
}

export const netlify: Target = {
  id: "netlify",
  title: "Netlify",
  kind: "platform",
  cannot: {
    "not-found":
      "a rule's query condition reads one value, so a repeated package parameter answers the last one, and ?package with no = counts as absent and answers the list",
  },
  config: (_options, names) => netlifyFiles(names),
  deployFiles: netlifyFiles,
  usage:
    "`shopfront build --target netlify`, then deploy `dist/` as the publish folder (`_redirects` and `_headers` are in its root)",
};
