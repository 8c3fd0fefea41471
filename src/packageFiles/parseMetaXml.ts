// A lenient reader of the Homebrew Channel's meta.xml. Real files are written by hand and by many
// tools: a byte order mark, `--` inside comments, an XML declaration naming the wrong encoding,
// Windows-1252 bytes, CDATA, stray `&`, missing closing tags. The Homebrew Channel reads them all,
// so a strict XML parser would refuse packages that work; this reader looks for the tags it needs.

export interface MetaXml {
  name?: string;
  /** `<coder>`, or `<author>` where there is no `<coder>`. */
  coder?: string;
  version?: string;
  /** Unix seconds (UTC) of `<release_date>`. */
  release_date?: number;
  short_description?: string;
  long_description?: string;
  no_ios_reload: boolean;
  ahb_access: boolean;
  /** How the bytes were read: UTF-8 where they are valid UTF-8, else Windows-1252. */
  encoding: "utf-8" | "utf-16" | "windows-1252";
}

export type MetaXmlResult = { ok: true; meta: MetaXml; warnings: string[] } | { ok: false; reason: string };

// Windows-1252's 0x80-0x9F; the five bytes it leaves undefined keep their Latin-1 meaning. Written
// out because Node's TextDecoder("windows-1252") decodes this range as Latin-1's control characters
// (https://github.com/nodejs/node/issues/56542).
const CP1252_HIGH =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

function decodeWindows1252(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b >= 0x80 && b < 0xa0 ? CP1252_HIGH[b - 0x80] : String.fromCharCode(b);
  return out;
}

/** Decodes the bytes as UTF-8 when they are valid UTF-8, else as Windows-1252 (a superset of Latin-1). */
export function decodeMetaXmlBytes(bytes: Uint8Array): { text: string; encoding: MetaXml["encoding"] } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  else if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    const label = bytes[0] === 0xff ? "utf-16le" : "utf-16be";
    return { text: new TextDecoder(label).decode(bytes.subarray(2)), encoding: "utf-16" };
  }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), encoding: "utf-8" };
  } catch {
    // Not UTF-8: Windows-1252, which old meta.xml files are written in and any byte decodes as.
    return { text: decodeWindows1252(bytes), encoding: "windows-1252" };
  }
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Replaces the five XML entities and numeric references; anything else (a bare `&`) stays as written. */
function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref.startsWith("#")) {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref] ?? whole;
  });
}

/** Text of an element: CDATA sections taken as written, the rest with entities decoded and tags dropped. */
function elementText(inner: string): string {
  let out = "";
  let rest = inner;
  for (;;) {
    const start = rest.indexOf("<![CDATA[");
    if (start < 0) break;
    const end = rest.indexOf("]]>", start + 9);
    out += decodeEntities(rest.slice(0, start).replace(/<[^>]*>/g, ""));
    if (end < 0) return out + rest.slice(start + 9);
    out += rest.slice(start + 9, end);
    rest = rest.slice(end + 3);
  }
  return out + decodeEntities(rest.replace(/<[^>]*>/g, ""));
}

/** Drops comments (ending at the first `-->`, whatever `--` they hold), declarations and processing instructions. */
function stripMarkup(text: string): string {
  return text
    .replace(/<!--[\s\S]*?(-->|$)/g, "")
    .replace(/<\?[\s\S]*?(\?>|$)/g, "")
    .replace(/<!DOCTYPE[^>]*>/gi, "");
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The text of the first `<tag>`: undefined when absent, "" for `<tag/>` or an empty element. */
function findElement(body: string, tag: string): string | undefined {
  const t = escapeRegExp(tag);
  const open = new RegExp(`<${t}(\\s[^>]*)?>|<${t}\\s*/>`, "i").exec(body);
  if (!open) return undefined;
  if (open[0].endsWith("/>")) return "";
  const after = body.slice(open.index + open[0].length);
  // A missing closing tag ends the element at the next tag that is not inside CDATA.
  const close = new RegExp(`</${t}\\s*>`, "i").exec(after);
  if (close) return elementText(after.slice(0, close.index));
  const next = /<(?!!\[CDATA\[)/.exec(after);
  return elementText(next ? after.slice(0, next.index) : after);
}

const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim();
const multiLine = (s: string): string =>
  s
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trim())
    .join("\n")
    .trim();

/**
 * `yyyyMMddHHmmss`, `yyyyMMddHHmm` or `yyyyMMdd` (the forms the Open Shop Channel reads) as Unix
 * seconds in UTC; undefined for anything else, such as an impossible day.
 */
export function parseReleaseDate(text: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?$/.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map((v) => (v === undefined ? 0 : Number(v))) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(ms).getUTCDate() !== day) return undefined;
  return ms / 1000;
}

/** Reads meta.xml's bytes. Fails only when no `<app>` element can be found. */
export function parseMetaXml(bytes: Uint8Array): MetaXmlResult {
  const { text, encoding } = decodeMetaXmlBytes(bytes);
  const clean = stripMarkup(text);
  const open = /<app(\s[^>]*)?>/i.exec(clean);
  if (!open) {
    return { ok: false, reason: text.trim() === "" ? "the file is empty" : "it has no <app> element" };
  }
  const afterOpen = clean.slice(open.index + open[0].length);
  const close = /<\/app\s*>/i.exec(afterOpen);
  const body = close ? afterOpen.slice(0, close.index) : afterOpen;

  const warnings: string[] = [];
  const single = (tag: string): string | undefined => {
    const value = findElement(body, tag);
    return value === undefined ? undefined : oneLine(value);
  };
  const meta: MetaXml = { no_ios_reload: false, ahb_access: false, encoding };
  const name = single("name");
  if (name !== undefined) meta.name = name;
  const coder = single("coder") ?? single("author");
  if (coder !== undefined) meta.coder = coder;
  const version = single("version");
  if (version !== undefined) meta.version = version;
  const short = single("short_description");
  if (short !== undefined) meta.short_description = short;
  const long = findElement(body, "long_description");
  if (long !== undefined) meta.long_description = multiLine(long);
  const date = single("release_date");
  if (date !== undefined && date !== "") {
    const seconds = parseReleaseDate(date);
    if (seconds === undefined) warnings.push(`release_date "${date}" is not yyyyMMddHHmmss, yyyyMMddHHmm or yyyyMMdd`);
    else meta.release_date = seconds;
  }
  meta.no_ios_reload = findElement(body, "no_ios_reload") !== undefined;
  meta.ahb_access = findElement(body, "ahb_access") !== undefined;
  return { ok: true, meta, warnings };
}
