// A deliberately naive second implementation of the v1 output, written from the documented format
// and sharing no code with src/: the build's files must equal these byte for byte. It trusts its
// input (a valid catalogue), keeps everything in memory, and favours plainness over speed.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A string as JSON, every character outside printable ASCII written as \uXXXX (lowercase hex). */
function quote(text: string): string {
  let out = '"';
  for (const ch of text.split("")) {
    const code = ch.charCodeAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Compact JSON with object keys in code-point order, ASCII only. */
function toJson(value: Json): string {
  if (typeof value === "string") return quote(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (Array.isArray(value)) return `[${value.map(toJson).join(",")}]`;
  const keys = Object.keys(value).sort(byCodePoint);
  return `{${keys.map((k) => `${quote(k)}:${toJson(value[k]!)}`).join(",")}}`;
}

function byCodePoint(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** A coder's folder: the lowercase hex of its UTF-8 bytes, in segments of at most 192 characters. */
function coderFolder(coder: string): string {
  const hex = Buffer.from(coder, "utf8").toString("hex");
  const segments: string[] = [];
  for (let i = 0; i < hex.length; i += 192) segments.push(hex.slice(i, i + 192));
  return segments.join("/");
}

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, Json>;

/** Writes the v1 files of the catalogue in `catalogueDir` into `outDir` (a plain folder). */
export function renderReference(catalogueDir: string, outDir: string): void {
  const files = new Map<string, string>();
  const hostsFile = readJson(join(catalogueDir, "hosts.json")) as { hosts: Record<string, string>[] };
  const repositories: Record<string, Json> = {};
  for (const h of hostsFile.hosts) repositories[h.id!] = { description: h.description!, host: h.host!, name: h.name! };
  files.set("v1/hosts", toJson({ repos: hostsFile.hosts.map((h) => h.id!), repositories }));

  for (const { id: host } of hostsFile.hosts) {
    let stats: Record<string, Record<string, Json>> = {};
    try {
      stats = readJson(join(catalogueDir, "stats", `${host}.json`)).packages as typeof stats;
    } catch {
      // No stats file: every package reports 0 and "".
    }
    const packages = readdirSync(join(catalogueDir, host!))
      .filter((f) => f.endsWith(".json") && !f.startsWith("."))
      .map((f) => {
        const pkg = readJson(join(catalogueDir, host!, f));
        const entry = stats[pkg.internal_name as string] ?? {};
        pkg.downloads = entry.downloads ?? 0;
        pkg.rating = entry.rating ?? "";
        return pkg;
      })
      .sort((a, b) => byCodePoint(a.internal_name as string, b.internal_name as string));

    const lists = new Map<string, Json[]>();
    const addTo = (path: string, pkg: Json) => {
      if (!lists.has(path)) lists.set(path, []);
      lists.get(path)!.push(pkg);
    };
    for (const pkg of packages) {
      const category = pkg.category as string;
      const coder = coderFolder(pkg.coder as string);
      files.set(`v1/${host}/package/${pkg.internal_name as string}`, toJson(pkg));
      addTo(`v1/${host}/packages`, pkg);
      addTo(`v1/${host}/category/${category}/packages`, pkg);
      addTo(`v1/${host}/coder/${coder}/packages`, pkg);
      addTo(`v1/${host}/category/${category}/coder/${coder}/packages`, pkg);
    }
    files.set(`v1/${host}/packages`, "[]");
    for (const [path, list] of lists) files.set(path, toJson(list));
    files.set(`v1/${host}/empty`, "[]");
  }

  for (const [path, text] of files) {
    mkdirSync(dirname(join(outDir, path)), { recursive: true });
    writeFileSync(join(outDir, path), text);
  }
}
