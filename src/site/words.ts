// The API's codes as people read them: dates, controllers, categories, and the order of names.
// Each is the same on every machine (no locale or time zone of the machine that builds), so the
// site's bytes stay a pure function of the catalogue.
import { compareCodePoints } from "../util/codePoints.js";

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** A unix time as its UTC date, YYYY-MM-DD (for `<time datetime>`); undefined when no date holds it. */
export function isoDate(seconds: number): string | undefined {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().slice(0, 10);
}

/** A unix time as its UTC date in words ("12 March 2011"); undefined when no date holds it. */
export function dateInWords(seconds: number): string | undefined {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return undefined;
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]!} ${date.getUTCFullYear()}`;
}

/** The controllers' letters (the HBB list's, `w` once per Wii Remote), each a name and its plural. */
const CONTROLLERS: Record<string, [string, string]> = {
  w: ["Wii Remote", "Wii Remotes"],
  n: ["Nunchuk", "Nunchuks"],
  c: ["Classic Controller", "Classic Controllers"],
  g: ["GameCube Controller", "GameCube Controllers"],
  k: ["USB keyboard", "USB keyboards"],
  z: ["Wii Zapper", "Wii Zappers"],
  s: ["SDHC card", "SDHC cards"],
};

/**
 * A package's controllers in words, in the order the manifest first names each: `wwwwn` is
 * ["1–4 Wii Remotes", "Nunchuk"]. A letter the table does not know is shown as itself.
 */
export function controllersInWords(letters: string): string[] {
  const counts = new Map<string, number>();
  for (const letter of letters) if (letter.trim() !== "") counts.set(letter, (counts.get(letter) ?? 0) + 1);
  return [...counts].map(([letter, n]) => {
    const names = CONTROLLERS[letter];
    if (!names) return letter;
    if (n === 1) return names[0];
    // Several remotes: the app plays with one up to that many players.
    return letter === "w" ? `1\u2013${n} ${names[1]}` : `${n} ${names[1]}`;
  });
}

const CATEGORIES: Record<string, string> = {
  demos: "Demos",
  emulators: "Emulators",
  games: "Games",
  media: "Media",
  utilities: "Utilities",
};

/** A category as a heading names it: the known ones by their name, any other with a capital first letter. */
export function categoryInWords(category: string): string {
  return CATEGORIES[category] ?? category.charAt(0).toUpperCase() + category.slice(1);
}

// A fixed locale, so the order is the same on every machine; numeric, so "Game 9" comes before "Game 10".
const COLLATOR = new Intl.Collator("en", { sensitivity: "base", numeric: true });

/** The order people read a list of packages in: by display name, then by internal name in code-point order. */
export function compareForReading(
  a: { display_name: string; internal_name: string },
  b: { display_name: string; internal_name: string },
): number {
  return COLLATOR.compare(a.display_name, b.display_name) || compareCodePoints(a.internal_name, b.internal_name);
}
