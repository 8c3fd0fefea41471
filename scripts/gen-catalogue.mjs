#!/usr/bin/env node
// @ts-check
// Writes a made-up catalogue in shopfront's source layout, for tests and the benchmark:
//
//   node scripts/gen-catalogue.mjs DIR PACKAGES [HOSTS=2] [SEED=1] [--coders=simple|real] [--stats]
//
// DIR is replaced. PACKAGES manifests are dealt over HOSTS hosts (`primary`, `themes`, then
// `mirror2`, `mirror3`, ...). The same arguments always write the same bytes. Coders are shared:
// a few write many packages and most write one or two, so coder and category-coder lists hold
// several packages. `--coders=real` gives them the shapes real coder names have (spaces, `&`, `+`,
// `/`, quotes, parentheses, commas, letters beyond ASCII and beyond the Basic Multilingual Plane,
// one long enough that its folder is cut in two); `simple` (the default) is ASCII words. `--stats`
// also writes `stats/<host>.json` with downloads and ratings for most packages.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { coders: { type: "string", default: "simple" }, stats: { type: "boolean", default: false } },
});
const [dir, packagesArg, hostsArg = "2", seedArg = "1"] = positionals;
const packageCount = Number(packagesArg);
const hostCount = Number(hostsArg);
if (
  !dir ||
  !Number.isInteger(packageCount) ||
  packageCount < 0 ||
  !Number.isInteger(hostCount) ||
  hostCount < 1 ||
  !["simple", "real"].includes(values.coders ?? "")
) {
  console.error("usage: gen-catalogue.mjs DIR PACKAGES [HOSTS=2] [SEED=1] [--coders=simple|real] [--stats]");
  process.exit(2);
}

// xorshift32: small, fast, and the same on every platform; the seed only has to be non-zero.
let state = (Number(seedArg) * 2654435761) >>> 0 || 0x9e3779b9;
function random() {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state / 2 ** 32;
}
const int = (/** @type {number} */ below) => Math.floor(random() * below);
const pick = (/** @type {readonly string[]} */ list) => /** @type {string} */ (list[int(list.length)]);
/** Skewed towards the start: a few items are picked often, most rarely. */
const pickSkewed = (/** @type {readonly string[]} */ list) =>
  /** @type {string} */ (list[Math.floor(random() ** 2.5 * list.length)]);

const WORDS = (
  "snake tetris pong mario wii remote channel loader media player emulator nes snes genesis arcade puzzle " +
  "racer tank golf paint sound tracker music video usb sd backup browser theme dark neon retro pixel space " +
  "star maze quest block jump kart chess cards doom quake ftp wiimote light blue red green tiny super mega"
).split(" ");
const FIRST = ["Jane", "Tomás", "Mika", "Oskar", "Lena", "Ivo", "Ruth", "Chen", "Amira", "Pavel", "Søren", "Kofi"];
const LAST = ["Doe", "Lund", "Stanković", "Vogt", "Hrubý", "Caldeira", "Okafor", "Nakamura", "Price", "Østergaard"];
const CATEGORIES = ["demos", "emulators", "games", "media", "utilities"];
const CONTROLLERS = ["w", "wn", "wnc", "wwww", "wncg", "g", "wk", "wz", "wcgs", "wwnn"];
const cap = (/** @type {string} */ w) => w.charAt(0).toUpperCase() + w.slice(1);

/** One coder, in the form of entry `i` of the pool. */
function coderName(/** @type {number} */ i) {
  const w = () => pick(WORDS);
  if (values.coders === "simple") return `${w()}${w()}${i}`;
  const person = () => `${pick(FIRST)} ${pick(LAST)}`;
  const shapes = [
    () => `${w()}${i}`,
    () => `${person()} ${i}`,
    () => `${pick(LAST)} & ${pick(LAST)} ${i}`,
    () => `${cap(w())}${i} + ${cap(w())}`,
    () => `${pick(FIRST).charAt(0)}.${pick(LAST)}/${pick(FIRST).charAt(0)}.${pick(LAST)}/${i}`,
    () => `${pick(FIRST)} "${cap(w())}" ${pick(LAST)} ${i}`,
    () => `${cap(w())}Kid (${i})`,
    () => `${person()}, ${person()} ${i}`,
    () => `J\u0101nis R\u016bcis ${i}`,
    () => `\u5c71\u7530 ${i}`,
    () => `Team \u{1f47e} ${cap(w())} ${i}`,
    () => `${w()}_${w()}.${i}`,
  ];
  return /** @type {() => string} */ (shapes[i % shapes.length])();
}

const hostIds = [
  "primary",
  "themes",
  ...Array.from({ length: Math.max(0, hostCount - 2) }, (_, i) => `mirror${i + 2}`),
];
hostIds.length = hostCount;
const coders = Array.from({ length: Math.max(1, Math.ceil(packageCount / 4)) }, (_, i) => coderName(i));
if (values.coders === "real")
  // Longer in UTF-8 than one folder of its hex key holds (96 bytes), so its lists sit two folders deep.
  coders.push(`${"\u0100".repeat(60)} the long-named coder`);

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const hosts = hostIds.map((id) => ({
  id,
  name: `${cap(id)} Repository`,
  host: `${id}.example.org`,
  description: `Made-up packages for the ${id} host.`,
}));
writeFileSync(join(dir, "hosts.json"), `${JSON.stringify({ default: "primary", hosts }, null, 2)}\n`);
for (const id of hostIds) mkdirSync(join(dir, id));

/** @type {Map<string, Record<string, { downloads?: number, rating?: string }>>} */
const stats = new Map(hostIds.map((id) => [id, {}]));
const DAY = 86400;
for (let i = 0; i < packageCount; i++) {
  const host = /** @type {string} */ (hostIds[i % hostCount]);
  const theme = host === "themes";
  const title = `${cap(pick(WORDS))}${cap(pick(WORDS))}`;
  // The index in base 36 keeps names unique, also ignoring case.
  const name = `${title}${pick(["", "_", "-", "."])}${pick(["Wii", "GX", "", "HD"])}-${i.toString(36)}`;
  const released = 1199145600 + int(16 * 365) * DAY + int(DAY);
  const coder = i % 97 === 0 && values.coders === "real" ? /** @type {string} */ (coders.at(-1)) : pickSkewed(coders);
  const manifest = {
    category: theme ? "themes" : pick(CATEGORIES),
    coder,
    contributors: random() < 0.6 ? "" : `${pick(FIRST)}, ${pick(FIRST)} (${pick(["graphics", "music", "testing"])})`,
    controllers: theme ? "w" : pick(CONTROLLERS),
    display_name: `${cap(pick(WORDS))} ${cap(pick(WORDS))}${random() < 0.2 ? " \u00e9dition" : ""} ${i}`,
    extracted: 4096 + int(60_000_000),
    internal_name: name,
    long_description: Array.from(
      { length: 2 + int(7) },
      () => `${cap(Array.from({ length: 6 + int(19) }, () => pick(WORDS)).join(" "))}.`,
    ).join(random() < 0.5 ? "\n" : "\n\n"),
    package_type: theme ? "thm" : pick(["dol", "dol", "elf"]),
    release_date: released,
    short_description: `${cap(pick(WORDS))} ${pick(WORDS)} for the Wii`,
    updated: random() < 0.3 ? released : released + int(3 * 365) * DAY,
    version: pick([
      `${int(4)}.${int(10)}`,
      `${int(3)}.${int(10)}.${int(20)}`,
      `r${1 + int(900)}`,
      `beta ${1 + int(9)}`,
    ]),
    zip_size: 1024 + int(20_000_000),
  };
  writeFileSync(join(dir, host, `${name}.json`), `${JSON.stringify(manifest, null, 2)}\n`);
  if (values.stats) {
    const roll = random();
    const hostStats = /** @type {Record<string, { downloads?: number, rating?: string }>} */ (stats.get(host));
    // A fifth of the packages get no entry, some only downloads, some only a rating, the rest both.
    if (roll < 0.2) continue;
    const downloads = Math.floor(random() ** 3 * 500_000);
    const rating = pick(["1", "2", "3", "4", "5", "3.5", "4.5"]);
    hostStats[name] = roll < 0.5 ? { downloads } : roll < 0.6 ? { rating } : { downloads, rating };
  }
}
if (values.stats) {
  mkdirSync(join(dir, "stats"));
  for (const [host, packages] of stats)
    writeFileSync(join(dir, "stats", `${host}.json`), `${JSON.stringify({ packages }, null, 2)}\n`);
}
console.log(`wrote ${packageCount} packages in ${hostCount} hosts to ${dir}`);
