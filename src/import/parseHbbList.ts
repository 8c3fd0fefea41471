// A Homebrew Browser list (listv036.txt, listv035.txt) -> what `shopfront import hbb` writes. Pure:
// the file's bytes in, packages and what could not be read out. The layout (reference/hbb-list-format):
//   Homebrew <browser size> <update notes>
//   per package: a line of tokens, then six text lines; each group of packages ends with a footer
//   line naming its category (=Games=), in whatever order the file puts them.
// Values are carried as the list has them, never fixed to fit: the writer checks each package by the
// catalogue's rules and reports what breaks one.
import { isUtf8 } from "node:buffer";
import { NAND_CAUTION } from "../render/renderHbb.js";
import type { ImportedPackage, ImportSource, SkippedEntry } from "./writeImport.js";

/** The text lines after a package's token line: display name, coder, version, extracted size, short and long description. */
const TEXT_LINES = 6;
/** Tokens up to controllers; extra folders and two flags may follow. */
const MIN_TOKENS = 9;
/** The categories a list's footers name. */
const LIST_CATEGORIES = ["demos", "emulators", "games", "media", "utilities"];

const utf8 = new TextDecoder("utf-8");

/**
 * Windows-1252's characters for bytes 0x80 to 0x9F (the WHATWG Encoding Standard's index; the five
 * bytes it leaves undefined stay C1 controls, which the rules then report). Every other byte is the
 * Latin-1 character of the same number. Node's TextDecoder reads this label as Latin-1, so the
 * table is here.
 */
const WINDOWS_1252_80_9F =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

function decodeWindows1252(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes)
    text += byte >= 0x80 && byte <= 0x9f ? WINDOWS_1252_80_9F[byte - 0x80] : String.fromCharCode(byte);
  return text;
}

/**
 * The file's lines as text. Lists from the Homebrew Browser era were written by Windows tools and
 * PHP without a declared encoding: a line that is valid UTF-8 is read as UTF-8, any other as
 * Windows-1252 (which gives every byte above 127 a character, Latin-1's included), and said so.
 */
function decodeLines(bytes: Uint8Array): { lines: string[]; notUtf8: number[] } {
  const lines: string[] = [];
  const notUtf8: number[] = [];
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    let line = bytes.subarray(start, end);
    if (line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
    if (isUtf8(line)) lines.push(utf8.decode(line));
    else {
      notUtf8.push(lines.length + 1);
      lines.push(decodeWindows1252(line));
    }
    start = end + 1;
  }
  // A final line break leaves an empty last line, which is no line of the list.
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return { lines, notUtf8 };
}

/** A footer's category (`=Games=` -> games), or undefined for any other line. */
function footerOf(line: string): string | undefined {
  const match = /^=([^=]+)=\s*$/.exec(line);
  return match ? match[1]!.trim().toLowerCase() : undefined;
}

/** A whole number token as a number; anything else as the text it is, for the rules to report. */
function integer(token: string): number | string {
  return /^(0|[1-9][0-9]{0,15})$/.test(token) ? Number(token) : token;
}

type Six = [string, string, string, string, string, string];

/** The tokens of a package line that has at least MIN_TOKENS, by name (icon and binary size are not carried). */
function tokenFields(tokens: readonly string[]) {
  return {
    name: tokens[0]!,
    updated: tokens[1]!,
    packageType: tokens[4]!,
    zipSize: tokens[5]!,
    downloads: tokens[6]!,
    rating: tokens[7]!,
    controllers: tokens[8]!,
    rest: tokens.slice(MIN_TOKENS),
  };
}

interface Pending {
  pkg: ImportedPackage;
  line: number;
}

/** Reads a Homebrew Browser list into packages of `host`. */
export function parseHbbList(bytes: Uint8Array, host: string): ImportSource {
  const { lines, notUtf8 } = decodeLines(bytes);
  const skipped: SkippedEntry[] = [];
  const packages: ImportedPackage[] = [];
  const notCarriedOver = new Map<string, number>();
  const notes: string[] = [];
  const skip = (line: number, ...reasons: string[]) => skipped.push({ source: `line ${line}`, reasons });
  const notCarried = (field: string) => notCarriedOver.set(field, (notCarriedOver.get(field) ?? 0) + 1);

  let i = 0;
  if (lines[0]?.startsWith("Homebrew ")) i = 1;
  else skip(1, "is not the list's header (`Homebrew <size> <notes>`): read as a package line");

  let group: Pending[] = [];
  const seen: string[] = [];
  while (i < lines.length) {
    const line = lines[i]!;
    const number = i + 1;
    const footer = footerOf(line);
    if (footer !== undefined) {
      for (const { pkg } of group) packages.push({ ...pkg, manifest: { ...pkg.manifest, category: footer } });
      group = [];
      seen.push(footer);
      i++;
      continue;
    }
    if (line.trim() === "") {
      skip(number, "is empty where a package line was expected");
      i++;
      continue;
    }
    const tokens = line.trim().split(/ +/);
    // The six text lines end at the next footer or the end of the file, whichever comes first.
    let textEnd = i + 1;
    while (textEnd < lines.length && textEnd < i + 1 + TEXT_LINES && footerOf(lines[textEnd]!) === undefined) textEnd++;
    const text = lines.slice(i + 1, textEnd);
    if (tokens.length < MIN_TOKENS) {
      skip(
        number,
        `has ${tokens.length} tokens; a package line has at least ${MIN_TOKENS} (name, updated, icon size, binary size, type, zip size, downloads, rating, controllers)`,
      );
      i = textEnd;
      continue;
    }
    if (text.length < TEXT_LINES) {
      skip(
        number,
        `package ${tokens[0]} has ${text.length} of its ${TEXT_LINES} text lines (display name, coder, version, extracted size, short and long description) before ${textEnd < lines.length ? `the footer on line ${textEnd + 1}` : "the end of the file"}`,
      );
      i = textEnd;
      continue;
    }
    const { name, updated, packageType, zipSize, downloads, rating, controllers, rest } = tokenFields(tokens);
    // Each text line without the spaces and tabs at its ends, as the original service read them
    // (OpenShopAPI's parselist.py strips every line): real lists have " USB Loader GX" and
    // descriptions ending in a tab, which no client shows.
    const [displayName, coder, version, extracted, short, written] = text.map((t) => t.trim()) as Six;
    // The Open Shop Channel's caution before the long description is its flag writes_to_nand.
    const writesToNand = written.startsWith(NAND_CAUTION);
    const long = writesToNand ? written.slice(NAND_CAUTION.length) : written;
    notCarried("icon size");
    notCarried("binary size");
    // Extra folders may hold spaces: everything between controllers and the two flags.
    const flags = rest.length >= 2 ? rest.slice(-2) : [];
    const folders = rest.slice(0, rest.length - flags.length).join(" ");
    if (folders !== "" && folders !== ".") notCarried("extra folders");
    if (flags[0] !== undefined && flags[0] !== ".") notCarried("no-delete flag");
    if (flags[1] !== undefined && flags[1] !== ".") notCarried("no-extract flag");
    group.push({
      line: number,
      pkg: {
        host,
        name,
        source: `line ${number}`,
        manifest: {
          coder,
          contributors: "",
          // A package that needs no controller is written `.` (shopfront's lists): the token cannot be empty.
          controllers: controllers === "." ? "" : controllers,
          display_name: displayName,
          extracted: integer(extracted),
          internal_name: name,
          long_description: long,
          package_type: packageType,
          release_date: integer(updated),
          short_description: short,
          updated: integer(updated),
          version,
          zip_size: integer(zipSize),
          ...(writesToNand ? { flags: ["writes_to_nand"] } : {}),
        },
        // The Homebrew Browser's rating 0 is "not rated", which the API says as "". Downloads that are
        // no whole number stay text, and the writer reports them by the stats schema.
        stats: { downloads: integer(downloads) as number, rating: rating === "0" ? "" : rating },
      },
    });
    i = textEnd;
  }

  if (group.length > 0) {
    // No footer after the last group: its category is the one no footer named, when just one is left.
    const left = LIST_CATEGORIES.filter((c) => !seen.includes(c));
    if (left.length === 1) {
      notes.push(
        `the packages after the last footer (line ${group[0]!.line} on) have none: they are ${left[0]}, the one category no footer named`,
      );
      for (const { pkg } of group) packages.push({ ...pkg, manifest: { ...pkg.manifest, category: left[0] } });
    } else {
      for (const { pkg, line } of group)
        skipped.push({
          source: `line ${line}`,
          host,
          name: pkg.name,
          reasons: [
            `no footer line follows it to name its category, and ${left.length === 0 ? "every category is named already" : `it could be any of ${left.join(", ")}`}`,
          ],
        });
    }
  }
  if (notUtf8.length > 0) {
    const shown = notUtf8.slice(0, 10).join(", ");
    notes.push(
      `${notUtf8.length === 1 ? "line" : "lines"} ${shown}${notUtf8.length > 10 ? ` and ${notUtf8.length - 10} more` : ""} ${notUtf8.length === 1 ? "is" : "are"} not UTF-8: read as Windows-1252`,
    );
  }
  return { hostIds: [host], packages, skipped, notCarriedOver, notes };
}
