// Vercel: `vercel.json` in the deployed folder. Rewrites run only after the filesystem found no file
// (hosting.md, trap 3), which the build's layout allows for: v2 has no files of its own, so every v2
// URL reaches the rewrites, and a trailing-slash URL names no file either. Every parameter of a
// source and the query value are constrained to the name pattern, so no other value reaches a path.
import { NAME_PATTERN_BODY } from "../catalogue/names.js";
import { renderNotFound } from "../render/renderApi.js";
import { RESPONSE_HEADERS, routePaths } from "../routes/routeTable.js";
import { fillTemplate, pathPattern } from "../routes/routeSyntax.js";
import type { Target, TargetFile } from "./target.js";

interface Condition {
  type: "query";
  key: string;
  value?: string;
}

interface Rewrite {
  source: string;
  destination: string;
  has?: Condition[];
  missing?: Condition[];
}

/** A route path as a Vercel source (path-to-regexp): `{host}` becomes `:host(NAME)`. */
function source(segments: readonly string[], trailingSlash: "optional" | "required"): string {
  return pathPattern(
    segments,
    (param) => `:${param}(${NAME_PATTERN_BODY})`,
    trailingSlash === "optional" ? "{/}?" : "/",
  ).pattern;
}

/** A route's file as a Vercel destination: `{host}` becomes `:host`. */
function destination(file: string): string {
  return `/${fillTemplate(file, (param) => `:${param}`)}`;
}

export function renderVercelConfig(): string {
  const rewrites: Rewrite[] = [];
  for (const path of routePaths((r) => ["hosts", "packages", "package", "v2-package", "v2-packages"].includes(r.id))) {
    for (const route of path.queries) {
      const { key, param } = route.query[0]!;
      // The named group fills the destination's parameter of that name; the anchors make the whole value match.
      const value = `^(?<${param}>${NAME_PATTERN_BODY})$`;
      rewrites.push({
        source: source(path.segments, "optional"),
        has: [{ type: "query", key, value }],
        destination: destination(route.file),
      });
    }
    const plain = path.plain;
    if (!plain) continue;
    if (plain.path === `/${plain.file}`) {
      // Served by the filesystem as it is; only the trailing-slash form needs a rule.
      rewrites.push({ source: source(path.segments, "required"), destination: destination(plain.file) });
    } else {
      const missing =
        path.queries.length > 0
          ? { missing: path.queries.map((route) => ({ type: "query" as const, key: route.query[0]!.key })) }
          : {};
      rewrites.push({ source: source(path.segments, "optional"), ...missing, destination: destination(plain.file) });
    }
  }
  const headers = [
    { source: "/(.*)", headers: Object.entries(RESPONSE_HEADERS).map(([key, value]) => ({ key, value })) },
  ];
  return `${JSON.stringify({ rewrites, headers }, null, 2)}\n`;
}

function vercelFiles(): TargetFile[] {
  return [
    { path: "vercel.json", content: renderVercelConfig() },
    // Vercel answers a miss in a static deployment with 404.html: the JSON error body.
    { path: "404.html", content: renderNotFound() },
  ];
}

export const vercel: Target = {
  id: "vercel",
  title: "Vercel",
  kind: "platform",
  cannot: {
    "not-found":
      "a has condition cannot count values, so a repeated package parameter answers one of them, and /404.json, a file of the build, answers 200 (files come before rewrites)",
  },
  config: vercelFiles,
  deployFiles: vercelFiles,
  usage: "`shopfront build --target vercel`, then `vercel deploy dist` (`vercel.json` and `404.html` are in its root)",
};
