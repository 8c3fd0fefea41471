// Counting downloads: which parsed requests are a download of which package, and how counts join a
// stats file. Pure: the requests come in, tallies and the new stats file come out.
import { isBadLine, type LogRequest, type ParsedLine } from "./logFormats.js";
import type { UrlPattern } from "./urlPattern.js";
import type { CountedLog, StatsFile } from "../catalogue/statsFile.js";

/**
 * Words by which crawlers, link previewers and feed fetchers name themselves in their user agent
 * (matched anywhere, ignoring case). Monitors and scripts that do not say so (curl, wget) count:
 * a person may be behind them.
 */
export const BOT_WORDS = ["bot", "crawl", "spider", "slurp", "facebookexternalhit", "preview"] as const;

const botRegExp = new RegExp(BOT_WORDS.join("|"), "i");

export function isBot(userAgent: string): boolean {
  return botRegExp.test(userAgent);
}

/**
 * Words by which tools that only check that URLs answer name themselves: `shopfront check`
 * (`shopfront-check/<version>`, which fetches every archive at each of its URLs), LinkChecker,
 * the W3C link checker (`W3C-checklink`) and the monitoring plugins' `check_http`. What they
 * fetch goes to no one.
 */
export const CHECKER_WORDS = ["shopfront-check", "linkcheck", "checklink", "check_http"] as const;

const checkerRegExp = new RegExp(CHECKER_WORDS.join("|"), "i");

export function isChecker(userAgent: string): boolean {
  return checkerRegExp.test(userAgent);
}

/**
 * Why a request was not counted, in the order they are tested: a request is reported under the
 * first that applies.
 */
export const SKIP_REASONS = {
  notGet: "not GET",
  status: "not 200 or 206",
  noMatch: "not a download path",
  unknownPackage: "unknown package",
  bot: "by bots",
  checker: "by link checkers (shopfront check among them)",
  repeatedRange: "repeated 206 (same client and file)",
} as const;

export type SkipReason = keyof typeof SKIP_REASONS;

/** The schema's maximum of a package's downloads. */
export const MAX_DOWNLOADS = 2147483647;

/** Distinct unknown names remembered: scanners try endless junk names, and memory must stay flat. */
const MAX_UNKNOWN_NAMES = 10_000;

/** How many bad lines are kept as examples. */
export const BAD_LINE_EXAMPLES = 5;

export interface BadLineExample {
  file: string;
  line: number;
  reason: string;
}

/** What a stretch of log lines gave. */
export interface Tally {
  /** Lines read, requests and bad lines alike (comments and blank lines aside). */
  lines: number;
  downloads: Map<string, number>;
  skipped: Record<SkipReason, number>;
  /** Requests of names the host does not have, by name (past MAX_UNKNOWN_NAMES names, under ""). */
  unknownNames: Map<string, number>;
  bad: number;
  badExamples: BadLineExample[];
  /** The 206 clients counted here: `client \0 user agent \0 name`. */
  ranges: Set<string>;
}

export function newTally(): Tally {
  return {
    lines: 0,
    downloads: new Map(),
    skipped: { notGet: 0, status: 0, noMatch: 0, unknownPackage: 0, bot: 0, checker: 0, repeatedRange: 0 },
    unknownNames: new Map(),
    bad: 0,
    badExamples: [],
    ranges: new Set(),
  };
}

export interface CountRules {
  pattern: UrlPattern;
  /** The names of the host's packages: only these are counted. */
  packages: ReadonlySet<string>;
  /** 206 clients already counted by this run's earlier logs. */
  countedRanges: ReadonlySet<string>;
}

/**
 * A copy of `text` that refers to nothing else. V8 keeps a slice of a string as a view of the whole:
 * a name sliced from a line would keep the megabyte of log text it was cut from alive for the whole
 * run, so whatever outlives its line is copied.
 */
function detached(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}

function addTo(map: Map<string, number>, key: string, n: number): void {
  const count = map.get(key);
  map.set(count === undefined ? detached(key) : key, (count ?? 0) + n);
}

function addUnknown(map: Map<string, number>, name: string, n: number): void {
  addTo(map, map.has(name) || map.size < MAX_UNKNOWN_NAMES ? name : "", n);
}

/**
 * Counts one request: a GET answered 200 is a download; a 206 is one part of a download (download
 * managers fetch a file in ranges), counted once per client (address and user agent) and package
 * in a run.
 */
export function countRequest(tally: Tally, request: LogRequest, rules: CountRules): void {
  const reason = skipReason(tally, request, rules);
  if (reason) tally.skipped[reason]++;
}

/** Why a request is not counted, or undefined after counting it. */
function skipReason(tally: Tally, request: LogRequest, rules: CountRules): SkipReason | undefined {
  if (request.method !== "GET") return "notGet";
  if (request.status !== 200 && request.status !== 206) return "status";
  const name = rules.pattern.match(request.path);
  if (name === undefined) return "noMatch";
  if (!rules.packages.has(name)) {
    addUnknown(tally.unknownNames, name, 1);
    return "unknownPackage";
  }
  if (isBot(request.userAgent)) return "bot";
  if (isChecker(request.userAgent)) return "checker";
  if (request.status === 206) {
    const key = `${request.client}\0${request.userAgent}\0${name}`;
    if (tally.ranges.has(key) || rules.countedRanges.has(key)) return "repeatedRange";
    tally.ranges.add(detached(key));
  }
  addTo(tally.downloads, name, 1);
  return undefined;
}

/** Counts one parsed line of `file` (line numbers from 1). */
export function countLine(tally: Tally, parsed: ParsedLine, file: string, line: number, rules: CountRules): void {
  if (parsed === "comment") return;
  tally.lines++;
  if (isBadLine(parsed)) {
    tally.bad++;
    if (tally.badExamples.length < BAD_LINE_EXAMPLES) tally.badExamples.push({ file, line, reason: parsed.bad });
    return;
  }
  countRequest(tally, parsed, rules);
}

export function sumDownloads(tally: Pick<Tally, "downloads">): number {
  let sum = 0;
  for (const n of tally.downloads.values()) sum += n;
  return sum;
}

/** Adds `part` into `total` (a log's tally into the run's). */
export function addTally(total: Tally, part: Tally): void {
  total.lines += part.lines;
  for (const [name, n] of part.downloads) addTo(total.downloads, name, n);
  for (const reason of Object.keys(total.skipped) as SkipReason[]) total.skipped[reason] += part.skipped[reason];
  for (const [name, n] of part.unknownNames) addUnknown(total.unknownNames, name, n);
  total.bad += part.bad;
  total.badExamples.push(...part.badExamples.slice(0, BAD_LINE_EXAMPLES - total.badExamples.length));
  for (const key of part.ranges) total.ranges.add(key);
}

export interface AppliedCounts {
  file: StatsFile;
  /** Packages whose downloads reached MAX_DOWNLOADS and stopped there. */
  capped: string[];
}

/**
 * The stats file after a run. Adding: each package's downloads grow by what the logs gave, and the
 * logs join the counted list. Replacing: each of the host's packages that has an entry gets exactly
 * what the logs gave (0 when nothing), and the counted list becomes these logs. Ratings, and entries
 * of packages the host no longer has, are kept either way.
 */
export function applyCounts(
  stats: StatsFile,
  downloads: ReadonlyMap<string, number>,
  counted: readonly CountedLog[],
  options: { replace: boolean; packages: ReadonlySet<string> },
): AppliedCounts {
  const capped: string[] = [];
  const entries = new Map(Object.entries(stats.packages));
  const withDownloads = (name: string, total: number) => {
    if (total > MAX_DOWNLOADS) capped.push(name);
    entries.set(name, { ...entries.get(name), downloads: Math.min(total, MAX_DOWNLOADS) });
  };
  if (options.replace)
    for (const name of entries.keys()) if (options.packages.has(name)) withDownloads(name, downloads.get(name) ?? 0);
  for (const [name, n] of downloads) {
    if (!options.replace) withDownloads(name, (entries.get(name)?.downloads ?? 0) + n);
    else if (!entries.has(name)) withDownloads(name, n);
  }
  const logs = options.replace ? [...counted] : [...(stats.counted ?? []), ...counted];
  const file: StatsFile = {
    ...(stats.$schema !== undefined ? { $schema: stats.$schema } : {}),
    packages: Object.fromEntries(entries),
  };
  if (logs.length > 0) file.counted = logs;
  return { file, capped: capped.sort() };
}
