// Over 300 lines: the log count's I/O, streaming, hashing and the lock, around the pure counting (countDownloads.ts).
// `shopfront stats count`: the I/O around the counting. Reads the host's packages and stats file,
// streams each log (gunzipped when it is gzip) through a hash and the line splitter, and writes the
// stats file back atomically. Memory stays flat however large the logs: a chunk, a line, the counts
// per package and the set of 206 clients.
import { createHash, type Hash } from "node:crypto";
import { createReadStream, existsSync, readdirSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename, join } from "node:path";
import { pipeline } from "node:stream";
import { createGunzip } from "node:zlib";
import { isValidName } from "../catalogue/names.js";
import { isError, type Problem } from "../catalogue/problems.js";
import { schemaValidators } from "../catalogue/schemas.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { UsageError } from "../util/errors.js";
import { acquireLock } from "../util/fileLock.js";
import { writeAtomically } from "../util/writeAtomically.js";
import {
  HOSTS_FILE,
  MANIFEST_EXTENSION,
  MAX_SOURCE_BYTES,
  MAX_STATS_BYTES,
  validateHostsFile,
  validateStatsFile,
} from "../validate/catalogueRules.js";
import {
  addTally,
  applyCounts,
  countLine,
  newTally,
  sumDownloads,
  type BadLineExample,
  type CountRules,
  type SkipReason,
  type Tally,
} from "./countDownloads.js";
import { detectFormat, lineParserFor, type LineParser, type LogFormat } from "./logFormats.js";
import { LineSplitter } from "./splitLines.js";
import { serializeStats, statsFileOf, type CountedLog, type StatsFile } from "../catalogue/statsFile.js";
import { anyUrlPattern, archiveUrlPatterns, compileUrlPattern } from "./urlPattern.js";
import { compareCodePoints } from "../util/codePoints.js";

export interface CountLogsOptions {
  catalogueDir: string;
  host: string;
  /** The paths of a download; every URL of the host's archives (archiveUrlPatterns) when empty. */
  urlPatterns: readonly string[];
  logs: readonly string[];
  /** A format, or "auto" to detect each log's from its first lines. */
  format: LogFormat | "auto";
  replace: boolean;
  /** The time recorded as countedAt (default: now). */
  now?: Date;
}

/** What happened to one log. */
export type LogState =
  /** Counted from its start. */
  | "counted"
  /** It began with a log counted before; only what follows was counted. */
  | "grown"
  /** Its content was counted before (by an earlier run, or earlier in this run). */
  | "already counted"
  /** It could not be read to its end (a broken gzip stream, a read error): nothing of it was counted. */
  | "failed";

export interface LogOutcome {
  /** The path as given. */
  path: string;
  state: LogState;
  /** Undefined when no line showed the format. */
  format?: LogFormat;
  /** Decompressed length. */
  bytes: number;
  /** Lines read (not counting those counted before). */
  lines: number;
  downloads: number;
  error?: string;
}

export interface CountSummary {
  host: string;
  /** Relative to the catalogue folder. */
  statsFile: string;
  /** False when nothing changed (every log counted before), so the file was left alone. */
  written: boolean;
  logs: LogOutcome[];
  lines: number;
  downloads: number;
  /** Packages that got at least one download. */
  packages: number;
  skipped: Record<SkipReason, number>;
  /** The most requested names the host does not have, most first, and how many names there were. */
  unknownNames: { top: [string, number][]; distinct: number };
  bad: number;
  badExamples: BadLineExample[];
  /** Packages whose downloads stopped at the schema's maximum. */
  capped: string[];
}

export interface CountLogsResult {
  /** An invalid hosts.json or stats file: nothing was counted or written. */
  problems: Problem[];
  summary?: CountSummary;
}

const CHUNK_BYTES = 1024 * 1024;
const TOP_UNKNOWN_NAMES = 5;
/** Lines read to find a log's format before it is called unknown. */
const DETECT_LINES = 10;

/** The names of the host's packages: its folder's `<name>.json` files, listed once. */
function listPackages(catalogueDir: string, host: string): Set<string> {
  const dir = join(catalogueDir, host);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    throw new UsageError(`cannot list the packages of host ${host} in ${dir}: ${(e as Error).message}`);
  }
  return new Set(
    entries
      .filter((e) => e.isFile() && e.name.endsWith(MANIFEST_EXTENSION))
      .map((e) => e.name.slice(0, -MANIFEST_EXTENSION.length))
      .filter((name) => isValidName(name)),
  );
}

async function isGzip(path: string): Promise<boolean> {
  const file = await open(path, "r");
  try {
    const { bytesRead, buffer } = await file.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await file.close();
  }
}

async function openLog(path: string): Promise<AsyncIterable<Buffer>> {
  const source = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  if (!(await isGzip(path))) return source;
  // gunzip reads concatenated members too (what `cat a.gz b.gz` and some rotators make).
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  return pipeline(source, gunzip, () => {});
}

/** Recorded logs by length, so a hash is taken at each length while streaming. */
type KnownPrefixes = Map<number, Set<string>>;

function addKnown(known: KnownPrefixes, log: Pick<CountedLog, "bytes" | "sha256">): void {
  if (log.bytes === 0) return;
  const set = known.get(log.bytes) ?? new Set<string>();
  set.add(log.sha256);
  known.set(log.bytes, set);
}

interface LogRead {
  state: Exclude<LogState, "failed">;
  format?: LogFormat;
  sha256: string;
  bytes: number;
  tally: Tally;
}

/**
 * Streams one log: hashes its content, and at each length of a recorded log checks whether the
 * content so far is that log. When it is, everything before was counted already: the tally so far
 * is dropped and the lines that start before that point are passed over.
 */
async function readLog(
  path: string,
  format: LogFormat | "auto",
  known: KnownPrefixes,
  rules: CountRules,
): Promise<LogRead> {
  const lengths = [...known.keys()].sort((a, b) => a - b);
  const hash: Hash = createHash("sha256");
  let tally = newTally();
  let skipBefore = 0;
  let offset = 0;
  let next = 0;
  let parser: LineParser | undefined = format === "auto" ? undefined : lineParserFor(format);
  let detected: LogFormat | undefined = format === "auto" ? undefined : format;
  let undetected = 0;
  const splitter = new LineSplitter((line, number) => {
    if (!parser) {
      detected = undetected < DETECT_LINES ? detectFormat(line) : undefined;
      if (!detected) {
        undetected++;
        countLine(tally, { bad: "not a line of a known log format (combined, s3, cloudfront)" }, path, number, rules);
        return;
      }
      parser = lineParserFor(detected);
    }
    countLine(tally, parser(line), path, number, rules);
  });
  for await (const chunk of await openLog(path)) {
    const end = offset + chunk.length;
    let hashed = 0;
    for (; next < lengths.length && lengths[next]! <= end; next++) {
      const length = lengths[next]!;
      hash.update(chunk.subarray(hashed, length - offset));
      hashed = length - offset;
      if (known.get(length)!.has(hash.copy().digest("hex"))) {
        skipBefore = length;
        tally = newTally();
      }
    }
    hash.update(chunk.subarray(hashed));
    offset = end;
    splitter.push(chunk, skipBefore);
  }
  splitter.end(skipBefore);
  const state = skipBefore === 0 ? "counted" : skipBefore === offset ? "already counted" : "grown";
  return {
    state,
    ...(detected ? { format: detected } : {}),
    sha256: hash.digest("hex"),
    bytes: offset,
    tally: state === "already counted" ? newTally() : tally,
  };
}

function checkLogs(logs: readonly string[]): void {
  if (logs.length === 0) throw new UsageError("no log file given");
  for (const log of logs) {
    let isFile: boolean;
    try {
      isFile = statSync(log).isFile();
    } catch (e) {
      throw new UsageError(`cannot read the log ${log}: ${(e as Error).message}`);
    }
    if (!isFile) throw new UsageError(`the log ${log} is not a file`);
  }
}

/** Counts downloads from access logs into `catalogue/stats/<host>.json`. */
export async function countLogs(options: CountLogsOptions): Promise<CountLogsResult> {
  const { catalogueDir, host } = options;
  // Checked before anything is read: a pattern that cannot be one is a usage error.
  const given = options.urlPatterns.map(compileUrlPattern);
  if (!existsSync(catalogueDir) || !statSync(catalogueDir).isDirectory())
    throw new UsageError(`cannot read the catalogue ${catalogueDir}: there is no such folder`);
  checkLogs(options.logs);

  const validators = await schemaValidators();
  const hostsPath = join(catalogueDir, HOSTS_FILE);
  const hosts = validateHostsFile(
    existsSync(hostsPath) ? readSourceFile(hostsPath, MAX_SOURCE_BYTES) : undefined,
    validators,
  );
  if (!hosts.hostsFile) return { problems: hosts.problems };
  const declared = hosts.hostsFile.hosts.map((h) => h.id);
  if (!declared.includes(host))
    throw new UsageError(`--host ${host} is not declared in ${HOSTS_FILE} (declared: ${declared.join(", ")})`);
  const packages = listPackages(catalogueDir, host);
  const pattern = anyUrlPattern(
    given.length > 0 ? given : archiveUrlPatterns(host, hosts.hostsFile.default).map(compileUrlPattern),
  );

  // Read, count and write under a lock: two counts at once would each add to the same old numbers.
  const release = acquireLock(
    join(catalogueDir, `.stats-${host}.lock`),
    "shopfront stats count",
    join(catalogueDir, statsFileOf(host)),
  );
  try {
    const statsFile = statsFileOf(host);
    const statsPath = join(catalogueDir, statsFile);
    let stats: StatsFile = { packages: {} };
    if (existsSync(statsPath)) {
      const checked = validateStatsFile(statsFile, readSourceFile(statsPath, MAX_STATS_BYTES), validators);
      if (!checked.stats || checked.problems.some(isError)) return { problems: checked.problems };
      stats = checked.stats;
    }

    const known: KnownPrefixes = new Map();
    if (!options.replace) for (const log of stats.counted ?? []) addKnown(known, log);
    const total = newTally();
    const rules: CountRules = { pattern, packages, countedRanges: total.ranges };
    const countedAt = (options.now ?? new Date()).toISOString().replace(/\.\d+Z$/, "Z");
    const counted: CountedLog[] = [];
    const outcomes: LogOutcome[] = [];
    for (const path of options.logs) {
      let read: LogRead;
      try {
        read = await readLog(path, options.format, known, rules);
      } catch (e) {
        outcomes.push({ path, state: "failed", bytes: 0, lines: 0, downloads: 0, error: (e as Error).message });
        continue;
      }
      const downloads = sumDownloads(read.tally);
      addTally(total, read.tally);
      outcomes.push({
        path,
        state: read.state,
        ...(read.format ? { format: read.format } : {}),
        bytes: read.bytes,
        lines: read.tally.lines,
        downloads,
      });
      if (read.state === "already counted" || read.bytes === 0) continue;
      const log: CountedLog = { sha256: read.sha256, bytes: read.bytes, file: basename(path), countedAt, downloads };
      counted.push(log);
      addKnown(known, log);
    }

    const applied = applyCounts(stats, total.downloads, counted, { replace: options.replace, packages });
    const written = options.replace || counted.length > 0;
    if (written) writeAtomically(statsPath, serializeStats(applied.file));
    const unknown = [...total.unknownNames].filter(([name]) => name !== "");
    return {
      problems: [],
      summary: {
        host,
        statsFile,
        written,
        logs: outcomes,
        lines: total.lines,
        downloads: sumDownloads(total),
        packages: total.downloads.size,
        skipped: total.skipped,
        unknownNames: {
          top: unknown.sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0])).slice(0, TOP_UNKNOWN_NAMES),
          distinct: unknown.length,
        },
        bad: total.bad,
        badExamples: total.badExamples,
        capped: applied.capped,
      },
    };
  } finally {
    release();
  }
}
