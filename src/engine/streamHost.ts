// Over 400 lines: one host's pass and what it is made of (its lists, its filtered lists, its site spill), which share its index as it grows.
// One host's pass, the one writer of the files a host's packages are listed in, for a full build
// and a rebuild alike. Its packages pass in name order, each either fresh (rendered as it is loaded,
// or read again) or kept from the last build (a rebuild's: its fragments copied from the live lists
// by the ranges the old index gives, never parsed); every fragment a package has in a name-order
// file goes straight there (its element of the host's list and of today's v4 and v3 contents), its
// page of the browse site is written (in a rebuild, when its bytes differ from the live page's), its
// row and search record go to spill files in the work folder, and the index records its numbers.
// Nothing of a package is kept once it has passed but the index's columns. When the host is done,
// the files that depend on all of it are made from the index alone: the filtered lists as byte
// ranges of the new list (a counting sort of positions by category and coder), today's information
// and featured app (engine/planToday.ts). A full build writes every file into the spare slot; a
// rebuild writes its lists aside (write/stagedFiles.ts), says which of them moved (a package came
// or went, or one read again has another fragment), and compares today's files with the last
// build's.
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { HostInfo, Package } from "../catalogue/fields.js";
import type { Signature } from "../read/signature.js";
import { fallbackFor, fileFor } from "../routes/routeTable.js";
import { filterKeys, type RenderedPackage } from "../render/renderApi.js";
import { renderTodayFragments, todayFiles, type TodayUrls } from "../render/renderToday.js";
import { searchRecord, type SpilledHost } from "../site/assembleSite.js";
import { renderCard, renderPackagePage, type SiteHost } from "../site/renderPages.js";
import { sitePackage, type FilesSource } from "../site/sitePackage.js";
import { packagePage } from "../site/sitePaths.js";
import { appendAll } from "../util/appendAll.js";
import { checkMemory } from "../util/memory.js";
import type { AppendedFile, RangeSource, SlotWriter } from "../write/slotWriter.js";
import {
  copyPackage,
  filterIndexesAt,
  filtersAt,
  INDEX_COLUMNS,
  lengthAt,
  listOffsets,
  newHostState,
  setPackage,
  setSignature,
  type HostState,
  type ListKind,
  type PackageFilters,
} from "./buildState.js";
import { liveFiles, type LiveFiles, type LiveRanges } from "./liveFiles.js";
import { planTodayHost, type TodayWrites } from "./planToday.js";

/** What a host's pass needs beyond its packages. */
export interface HostStreamContext {
  writer: SlotWriter;
  host: HostInfo;
  /** hosts.json's default host: its today API is at the OSC's paths. */
  hostsDefault: string;
  urls: TodayUrls;
  /** The time whose UTC day picks the featured app. */
  featuredMs: number;
  /** With the browse site: the host as the site names it, where its spills go, and which packages have files. */
  site?: { host: SiteHost; workDir: string; files: FilesSource } | undefined;
  /** How many packages the host will have at most (its manifests): its columns are made that long at once. */
  expected: number;
  /** A rebuild: the host as the last build left it, whose kept packages are copied from its live lists. */
  last?: LastHost | undefined;
}

/** A rebuild's host as the last build left it, and which of its files this pass writes again. */
export interface LastHost {
  state: HostState;
  /** The host as hosts.json declared it then, and the time whose UTC day picked its featured app. */
  host: HostInfo;
  featuredMs: number;
  /** The live slot, whose lists hold the kept packages' fragments. */
  live: LiveFiles;
  /**
   * Which of a package's filtered lists to write (those a package removed, changed or added was in,
   * or is), when the list is: asked once a category and coder, so a list no edit touched costs no path.
   */
  filtered: (filters: PackageFilters) => readonly string[];
}

/** What a host's pass leaves once it is finished. */
export interface FinishedHost {
  state: HostState;
  /**
   * The files written (its lists, the filtered lists that have a package, and the pages of the browse
   * site of its fresh packages: in a rebuild, those whose bytes differ from the live page), by path.
   */
  written: string[];
  /** A rebuild's today files that moved, to be written (or deleted) with its other changes. */
  today?: TodayWrites;
  /** With the site: the host's fresh packages' spill, as the site's assembler reads it (spilled.close() after). */
  spilled?: SpilledHost & { close(): void };
}

/** Site numbers kept per fresh package, in name order: release, updated, row length, record length, place in the list. */
const SITE_NUMBERS = 5;

const LIST_KINDS = ["v1", "v4", "v3"] as const;

export class HostStream {
  readonly #context: HostStreamContext;
  readonly #state: HostState;
  #count = 0;
  readonly #paths: Record<ListKind, string>;
  readonly #lists: Partial<Record<ListKind, HostList>> = {};
  /**
   * A rebuild's lists whose bytes moved: every one when a package came or went; else those in which
   * a package read again has another fragment than it had. The others are left as they are.
   */
  readonly #moved: Record<ListKind, boolean> = { v1: false, v4: false, v3: false };
  /** A rebuild's count of the last build's packages still here (kept or read again). */
  #fromLast = 0;
  /** Where each of the last build's packages starts in each list (a rebuild's, read when a package is read again). */
  readonly #lastOffsets: Partial<Record<ListKind, Float64Array>> = {};
  readonly #site: SiteSpill | undefined;
  /** The fresh packages' pages of the browse site this pass wrote. */
  readonly #pages: string[] = [];

  constructor(context: HostStreamContext) {
    this.#context = context;
    const { writer, host, hostsDefault, last } = context;
    // A full build's stats entries of names the host has no package of are known once it is read: finish's caller sets them.
    this.#state = newHostState([], last ? last.state.orphans : []);
    this.#state.columns = new Float64Array(context.expected * INDEX_COLUMNS);
    const today = todayFiles(host.id, hostsDefault);
    this.#paths = { v1: fileFor("packages", { host: host.id }), v4: today.v4.contents, v3: today.v3.contents };
    // A rebuild writes every list aside; once its packages have passed, only those that moved are taken.
    for (const kind of LIST_KINDS) {
      const offsets = last && (this.#lastOffsets[kind] = listOffsets(last.state, kind));
      const kept = last && { file: last.live.ranges(this.#paths[kind]), offsets: offsets! };
      this.#lists[kind] = new HostList(writer.append(this.#paths[kind]), kept);
    }
    if (context.site) this.#site = new SiteSpill(context.site.workDir, context.host.id, context.expected);
  }

  /**
   * A fresh package, the next in name order: in a rebuild, `j` is its index in the last build when
   * it was there. Returns whether its package object is new or other than the last build's.
   */
  add(pkg: RenderedPackage, signature: Signature, j?: number): boolean {
    checkMemory("writing the packages");
    const { writer, host, urls, last } = this.#context;
    const i = this.#count++;
    const today = renderTodayFragments(pkg.today, host.id, urls);
    let moved = true;
    if (last && j !== undefined) {
      this.#fromLast++;
      const was = (kind: ListKind, fragment: string) => {
        const start = this.#lastOffsets[kind]![j]!;
        const end = start + lengthAt(last.state, j, kind);
        const same =
          end - start === fragment.length &&
          last.live.ranges(this.#paths[kind]).read(start, end).toString("latin1") === fragment;
        if (!same) this.#moved[kind] = true;
        return !same;
      };
      moved = was("v1", pkg.json);
      was("v4", today.v4);
      was("v3", today.v3);
    }
    this.#lists.v1?.add(pkg.json);
    this.#lists.v4?.add(today.v4);
    this.#lists.v3?.add(today.v3);
    this.#grow(i + 1);
    this.#state.names.push(pkg.name);
    setPackage(this.#state, i, signature, pkg.json.length, {
      category: pkg.category,
      coder: pkg.coder,
      stats: pkg.stats,
      fragments: { v4: { length: today.v4.length }, v3: { length: today.v3.length }, featured: today.featured },
    });
    const site = this.#context.site;
    if (site && this.#site) {
      const p = sitePackage(host.id, JSON.parse(pkg.json) as Package, site.files);
      const path = packagePage(host.id, pkg.name);
      const page = renderPackagePage(site.host, p);
      // A rebuild leaves a page whose bytes are the live one's as it is.
      if (this.#context.last?.live.text(path) !== page) {
        writer.write({ path, content: page });
        if (this.#context.last) this.#pages.push(path);
      }
      this.#site.add(i, p.display_name, p.release_date, p.updated, renderCard(host.id, p), searchRecord(host.id, p));
    }
    return moved;
  }

  /** A rebuild's package kept as it was, the next in name order: `j` is its index in the last build; its signature when it moved. */
  keep(j: number, signature?: Signature): void {
    checkMemory("writing the packages");
    const old = this.#context.last!.state;
    const i = this.#count++;
    this.#fromLast++;
    for (const kind of LIST_KINDS) this.#lists[kind]?.keep(j, lengthAt(old, j, kind));
    this.#grow(i + 1);
    this.#state.names.push(old.names[j]!);
    copyPackage(this.#state, i, old, j);
    if (signature) setSignature(this.#state, i, signature);
  }

  /** Ends the host's lists and writes the files that depend on all its packages. */
  finish(): FinishedHost {
    const { writer, host, hostsDefault, last, featuredMs } = this.#context;
    const written: string[] = [];
    // A package that came or went moves every list.
    const members = last !== undefined && (this.#count > this.#fromLast || this.#fromLast < last.state.names.length);
    const moved = (kind: ListKind) => !last || members || this.#moved[kind];
    for (const kind of LIST_KINDS) {
      this.#lists[kind]!.close();
      if (moved(kind)) written.push(this.#paths[kind]);
    }
    const state = this.#state;
    // Cut to the packages there are (a manifest that failed has none); no copy when every one is there.
    if (state.columns.length !== this.#count * INDEX_COLUMNS)
      state.columns = state.columns.slice(0, this.#count * INDEX_COLUMNS);
    if (!last) writer.write({ path: fallbackFor("category", { host: host.id }), content: "[]" });
    if (moved("v1")) appendAll(written, this.#filteredLists(state, last?.filtered));
    appendAll(written, this.#pages);
    // The featured app is cut from the contents just written: on disk first.
    writer.drain();
    const slot = liveFiles(writer.root);
    try {
      const contents = (kind: "v4" | "v3"): LiveRanges => (moved(kind) ? slot : last!.live).ranges(this.#paths[kind]);
      const today = planTodayHost(
        {
          hostBefore: last?.host ?? host,
          hostNow: host,
          defaultHost: hostsDefault,
          featuredMsBefore: last?.featuredMs ?? featuredMs,
          featuredMsNow: featuredMs,
        },
        last?.state,
        state,
        true,
        { before: (kind) => last!.live.ranges(this.#paths[kind]), now: contents },
      );
      const spilled = this.#site?.finish(state);
      if (last) return { state, written, today, ...(spilled ? { spilled } : {}) };
      for (const [path, content] of today.writes) if (content !== null) writer.write({ path, content });
      return { state, written, ...(spilled ? { spilled } : {}) };
    } finally {
      slot.close();
    }
  }

  /**
   * The category, coder and category-coder lists (of those `only` gives, in a rebuild): positions
   * grouped by a counting sort over the index's columns, each list then written as ranges of the
   * host's new list (a run of neighbours, commas and all, read as one range). Returns the paths written.
   */
  #filteredLists(state: HostState, only?: (filters: PackageFilters) => readonly string[]): string[] {
    const { writer, host } = this.#context;
    const count = state.names.length;
    const starts = listOffsets(state);
    const files = only ?? filterKeys(host.id);
    // Each list by the key of its file, the pair's too: a counting sort of the positions by key
    // (up to three a package; -1 where a list is not written).
    const keyOf = new Map<string, number>();
    const paths: string[] = [];
    const keys = new Int32Array(count * 3).fill(-1);
    // A package's three keys follow from its category and coder: worked out once for each pair.
    const byPair = new Map<number, readonly number[]>();
    const values = state.values.length;
    for (let i = 0; i < count; i++) {
      const [category, coder] = filterIndexesAt(state, i);
      let three = byPair.get(category * values + coder);
      if (!three) {
        three = files(filtersAt(state, i)).map((path) => {
          let key = keyOf.get(path);
          if (key === undefined) keyOf.set(path, (key = paths.push(path) - 1));
          return key;
        });
        byPair.set(category * values + coder, three);
      }
      keys.set(three, i * 3);
    }
    const sizes = new Int32Array(paths.length + 1);
    for (const key of keys) if (key >= 0) sizes[key + 1]!++;
    for (let k = 1; k <= paths.length; k++) sizes[k]! += sizes[k - 1]!;
    const fill = sizes.slice(0, paths.length);
    const members = new Int32Array(sizes[paths.length]!);
    for (let i = 0; i < count; i++)
      for (let k = 0; k < 3; k++) {
        const key = keys[i * 3 + k]!;
        if (key >= 0) members[fill[key]!++] = i;
      }
    const list = join(writer.root, this.#paths.v1);
    paths.forEach((path, key) => {
      writer.writeRanges(path, list, listSources(members.subarray(sizes[key]!, sizes[key + 1]!), starts, state));
    });
    return paths;
  }

  #grow(count: number): void {
    const need = count * INDEX_COLUMNS;
    if (this.#state.columns.length >= need) return;
    const grown = new Float64Array(Math.max(need, this.#state.columns.length * 2));
    grown.set(this.#state.columns);
    this.#state.columns = grown;
  }
}

/**
 * One host-wide list as the pass writes it: "[", each package's fragment, fresh or copied from the
 * live list (kept neighbours as one run, the commas between them included), "]".
 */
class HostList {
  readonly #out: AppendedFile;
  /** The live list and where each old package starts in it (a rebuild's). */
  readonly #kept: { file: LiveRanges; offsets: Float64Array } | undefined;
  #started = false;
  #run: [number, number] | undefined;

  constructor(out: AppendedFile, kept: { file: LiveRanges; offsets: Float64Array } | undefined) {
    this.#out = out;
    this.#kept = kept;
    out.add("[");
  }

  add(fragment: string): void {
    this.#drain();
    this.#out.add(this.#started ? `,${fragment}` : fragment);
    this.#started = true;
  }

  /** The old list's package j, `length` bytes long. */
  keep(j: number, length: number): void {
    const start = this.#kept!.offsets[j]!;
    if (this.#run && this.#run[1] + 1 === start) this.#run[1] = start + length;
    else {
      this.#drain();
      this.#run = [start, start + length];
    }
  }

  close(): void {
    this.#drain();
    this.#out.add("]");
    this.#out.close();
  }

  #drain(): void {
    if (!this.#run) return;
    if (this.#started) this.#out.add(",");
    for (const block of this.#kept!.file.blocks(this.#run[0], this.#run[1])) this.#out.addBytes(block);
    this.#started = true;
    this.#run = undefined;
  }
}

/** A filtered list's bytes: "[", its members' objects as ranges of the host's list (neighbours as one), "]". */
function* listSources(members: Int32Array, starts: Float64Array, state: HostState): Generator<RangeSource> {
  yield "[";
  for (let k = 0; k < members.length; k++) {
    checkMemory("writing the filtered lists");
    const i = members[k]!;
    const start = starts[i]!;
    const end = start + lengthAt(state, i);
    // A member right after the one before continues its range, the comma between them included.
    if (k > 0 && members[k - 1] === i - 1) yield [start - 1, end];
    else {
      if (k > 0) yield ",";
      yield [start, end];
    }
  }
  yield "]";
}

/**
 * A host's fresh packages' rows and search records in spill files, in name order (every package in
 * a full build), with what the site's index keeps of each and its place in the host's new list;
 * read back by offset (the prefix sums of their lengths).
 */
class SiteSpill {
  readonly #cardFd: number;
  readonly #recordFd: number;
  #pendingCards = "";
  #pendingRecords = "";
  #count = 0;
  #numbers: Float64Array;
  readonly #displays: string[] = [];

  constructor(workDir: string, host: string, expected: number) {
    this.#numbers = new Float64Array(expected * SITE_NUMBERS);
    this.#cardFd = openSync(join(workDir, `${host}.cards`), "w+");
    this.#recordFd = openSync(join(workDir, `${host}.records`), "w+");
  }

  /** The next fresh package, at position `i` of the host's new list. */
  add(i: number, display: string, release: number, updated: number, card: string, record: string): void {
    const k = this.#count++;
    if (this.#numbers.length < (k + 1) * SITE_NUMBERS) {
      const grown = new Float64Array(Math.max((k + 1) * SITE_NUMBERS, this.#numbers.length * 2));
      grown.set(this.#numbers);
      this.#numbers = grown;
    }
    this.#displays.push(display);
    const at = k * SITE_NUMBERS;
    this.#numbers[at] = release;
    this.#numbers[at + 1] = updated;
    this.#numbers[at + 2] = card.length;
    this.#numbers[at + 3] = record.length;
    this.#numbers[at + 4] = i;
    this.#pendingCards += card;
    this.#pendingRecords += record;
    if (this.#pendingCards.length + this.#pendingRecords.length >= SPILL_CHUNK) this.#flush();
  }

  #flush(): void {
    writeSync(this.#cardFd, this.#pendingCards, null, "latin1");
    writeSync(this.#recordFd, this.#pendingRecords, null, "latin1");
    this.#pendingCards = "";
    this.#pendingRecords = "";
  }

  finish(state: HostState): SpilledHost & { close(): void } {
    this.#flush();
    const count = this.#count;
    const numbers = this.#numbers;
    const displays = this.#displays;
    const cardStarts = new Float64Array(count);
    const recordStarts = new Float64Array(count);
    for (let k = 0, card = 0, record = 0; k < count; k++) {
      cardStarts[k] = card;
      recordStarts[k] = record;
      card += numbers[k * SITE_NUMBERS + 2]!;
      record += numbers[k * SITE_NUMBERS + 3]!;
    }
    const at = (k: number) => numbers[k * SITE_NUMBERS + 4]!;
    const [cardFd, recordFd] = [this.#cardFd, this.#recordFd];
    return {
      count,
      name: (k) => state.names[at(k)]!,
      display: (k) => displays[k]!,
      category: (k) => filtersAt(state, at(k)).category,
      coder: (k) => filtersAt(state, at(k)).coder,
      release: (k) => numbers[k * SITE_NUMBERS]!,
      updated: (k) => numbers[k * SITE_NUMBERS + 1]!,
      cardLength: (k) => numbers[k * SITE_NUMBERS + 2]!,
      recordLength: (k) => numbers[k * SITE_NUMBERS + 3]!,
      card: (k) => readLatin1(cardFd, cardStarts[k]!, numbers[k * SITE_NUMBERS + 2]!),
      record: (k) => readLatin1(recordFd, recordStarts[k]!, numbers[k * SITE_NUMBERS + 3]!),
      close: () => {
        closeSync(cardFd);
        closeSync(recordFd);
      },
    };
  }
}

/** Spilled rows and records are gathered up to this many characters before they are written. */
const SPILL_CHUNK = 1 << 20;

function readLatin1(fd: number, start: number, length: number): string {
  const bytes = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, bytes, done, length - done, start + done);
    if (read === 0) throw new Error("internal: a spilled row ends past its file");
    done += read;
  }
  return bytes.toString("latin1");
}
