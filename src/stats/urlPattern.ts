// `--url-pattern`: which request paths are a download of which package. `{name}` stands for a
// package name (every `{name}` of a pattern is the same name); everything else is literal.
import { isValidName, NAME_PATTERN_BODY } from "../catalogue/names.js";
import { PACKAGE_FILE_TEMPLATES, packageFilesPrefix } from "../routes/packageFileLayout.js";
import { aliasUrlsOf } from "../routes/routeTable.js";
import { UsageError } from "../util/errors.js";

const PLACEHOLDER = "{name}";

export interface UrlPattern {
  readonly source: string;
  /** The package name a logged request target downloads, if it is a download. */
  match(target: string): string | undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** Compiles a pattern such as `/hbb/{name}/{name}.zip`; a pattern that cannot be one is a usage error. */
export function compileUrlPattern(source: string): UrlPattern {
  if (!source.startsWith("/"))
    throw new UsageError(`--url-pattern ${source}: must start with / (it matches request paths)`);
  if (/[?#]/.test(source))
    throw new UsageError(`--url-pattern ${source}: must not contain ? or # (the query string is ignored)`);
  const literals = source.split(PLACEHOLDER);
  if (literals.length < 2) throw new UsageError(`--url-pattern ${source}: must contain ${PLACEHOLDER}`);
  // The first {name} captures; the others must repeat what it captured.
  const body = literals
    .map(escapeRegExp)
    .reduce((regExp, literal, i) => `${regExp}${i === 1 ? `(?<name>${NAME_PATTERN_BODY})` : "\\k<name>"}${literal}`);
  const regExp = new RegExp(`^${body}$`);
  return {
    source,
    match(target) {
      const query = target.indexOf("?");
      const path = decodePath(query < 0 ? target : target.slice(0, query));
      const name = path === undefined ? undefined : regExp.exec(path)?.groups?.name;
      return isValidName(name) ? name : undefined;
    },
  };
}

/** A path with its %XX escapes decoded, or undefined when one is malformed (or not UTF-8). */
export function decodePath(path: string): string | undefined {
  if (!path.includes("%")) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    // A malformed escape is no package's path: the request is not counted.
    return undefined;
  }
}

/** A request path is a download when any of the patterns matches it; the first that does names the package. */
export function anyUrlPattern(patterns: readonly UrlPattern[]): UrlPattern {
  if (patterns.length === 1) return patterns[0]!;
  return {
    source: patterns.map((p) => p.source).join(" "),
    match(target) {
      for (const pattern of patterns) {
        const name = pattern.match(target);
        if (name !== undefined) return name;
      }
      return undefined;
    },
  };
}

/** A name no package file URL holds elsewhere, to find the aliases of a template's path. */
const PROBE = "shopfrontprobe";

/**
 * Every URL the build serves a host's archives at, as patterns: the stored path the Wii app and v1/v2
 * give (`/hbb/{name}/{name}.zip`, under `/hosts/<host>/` for a host that is not the default) and each
 * alias of it the route table answers (`/api/contents/{name}/{name}.zip`, v3's and v4's), which
 * today's clients download.
 */
export function archiveUrlPatterns(host: string, defaultHost: string): string[] {
  const prefix = packageFilesPrefix(host, defaultHost);
  const stored = `${prefix}${PACKAGE_FILE_TEMPLATES.archive.split("{name}").join(PROBE)}`;
  // Every alias is under the host's prefix too; only what follows it holds the name (a host may be called anything).
  return [stored, ...aliasUrlsOf(stored)].map(
    (path) => `/${prefix}${path.slice(prefix.length).split(PROBE).join("{name}")}`,
  );
}
