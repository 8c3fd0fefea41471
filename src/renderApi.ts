// Renders a validated catalogue into the files of the static API: a list of path -> content, pure.
import { NO_STATS, PACKAGE_FIELDS, type HostInfo, type Manifest, type Package, type PackageStats } from "./fields.js";
import { describeRoute, fileFor, NOT_FOUND_FILE, PREFLIGHT_HEADERS, ROUTES } from "./routes.js";

/** A file of the output. A JSON array is kept as its rendered elements, so a list of any length is written in chunks. */
export interface OutputFile {
  path: string;
  content: string | { jsonArray: readonly string[] };
}

export interface RenderedPackage {
  name: string;
  /** The package object as ASCII JSON. */
  json: string;
}

export interface RenderedCatalogue {
  hosts: readonly HostInfo[];
  /** Per host id, its packages sorted by name in code-point order. */
  packages: ReadonlyMap<string, readonly RenderedPackage[]>;
}

/**
 * JSON with every character outside printable ASCII escaped as \uXXXX, as Python's ensure_ascii does:
 * the bytes then decode the same whatever charset a host claims.
 */
export function asciiJson(value: unknown): string {
  return escapeNonAscii(JSON.stringify(value));
}

function escapeNonAscii(json: string): string {
  return /[^\x20-\x7e]/.test(json) ? json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : json;
}

const PACKAGE_KEYS = (Object.keys(PACKAGE_FIELDS) as (keyof Package)[]).sort();

/** One package object: the manifest's fields and the computed ones, keys in alphabetical order. */
export function renderPackage(manifest: Manifest, stats: PackageStats = NO_STATS): string {
  const pkg: Package = { ...manifest, ...stats };
  let json = "{";
  for (const key of PACKAGE_KEYS) json += `${json.length > 1 ? "," : ""}"${key}":${JSON.stringify(pkg[key])}`;
  return escapeNonAscii(`${json}}`);
}

/** The host list object: `repos` in the catalogue's order, `repositories` keyed by id with sorted keys. */
export function renderHosts(hosts: readonly HostInfo[]): string {
  const repositories: Record<string, { description: string; host: string; name: string }> = {};
  for (const h of [...hosts].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    repositories[h.id] = { description: h.description, host: h.host, name: h.name };
  }
  return asciiJson({ repos: hosts.map((h) => h.id), repositories });
}

export function renderNotFound(): string {
  const forms = ROUTES.map((r) => `GET ${describeRoute(r)}`).filter((form, i, all) => all.indexOf(form) === i);
  return asciiJson({ error: "not_found", message: `No such host, package or endpoint. This API answers ${forms.join(", ")}.` });
}

/** The body of a 405, where the host lets a config give one. */
export function renderMethodNotAllowed(): string {
  return asciiJson({ error: "method_not_allowed", message: `This API answers ${PREFLIGHT_HEADERS.Allow}.` });
}

/** Every file of the API, sorted by path. */
export function renderApi(catalogue: RenderedCatalogue): OutputFile[] {
  const files: OutputFile[] = [
    { path: fileFor("hosts"), content: renderHosts(catalogue.hosts) },
    { path: NOT_FOUND_FILE, content: renderNotFound() },
  ];
  for (const { id: host } of catalogue.hosts) {
    const packages = catalogue.packages.get(host) ?? [];
    files.push({ path: fileFor("packages", { host }), content: { jsonArray: packages.map((p) => p.json) } });
    for (const p of packages) files.push({ path: fileFor("package", { host, name: p.name }), content: p.json });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A file's bytes as one string (tests and small files; large lists are written in chunks). */
export function contentText(content: OutputFile["content"]): string {
  return typeof content === "string" ? content : `[${content.jsonArray.join(",")}]`;
}
