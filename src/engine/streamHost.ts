// One host of a full build, its packages streamed in name order: each package is rendered once, as
// it is loaded, and every fragment it has in a name-order file goes straight there (its package
// object, its element of the host's list and of today's v4 and v3 contents, its page of the browse
// site); its row and search record go to spill files in the work folder; the index records its
// numbers. Nothing of a package is kept once it has passed but the index's columns. When the host
// is done, the files that depend on all of it are made from the index alone: the filtered lists
// as byte ranges of the new list (a counting sort of positions by category and coder), today's
// information from the count and categories, the featured app as ranges of the new contents.
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { HostInfo, Package } from "../catalogue/fields.js";
import type { Signature } from "../read/signature.js";
import { fallbackFor, fileFor } from "../routes/routeTable.js";
import { filterKeys, type RenderedPackage } from "../render/renderApi.js";
import {
  featuredPick,
  renderInformation,
  renderTodayFragments,
  todayFiles,
  type TodayUrls,
} from "../render/renderToday.js";
import { searchRecord, type SpilledHost } from "../site/assembleSite.js";
import { renderCard, renderPackagePage, type SiteHost } from "../site/renderPages.js";
import { sitePackage, type FilesSource } from "../site/sitePackage.js";
import { packagePage } from "../site/sitePaths.js";
import { checkMemory } from "../util/memory.js";
import type { AppendedFile, RangeSource, SlotWriter } from "../write/slotWriter.js";
import {
  featuredAt,
  filterIndexesAt,
  filtersAt,
  INDEX_COLUMNS,
  lengthAt,
  newHostState,
  setPackage,
  type HostState,
} from "./buildState.js";

/** What a host's stream needs beyond its packages. */
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
}

/** Site numbers kept per package beside the host's index, in name order: release, updated, row length, record length. */
const SITE_NUMBERS = 4;

export class HostStream {
  readonly #context: HostStreamContext;
  readonly #state: HostState;
  #count = 0;
  readonly #v1: AppendedFile;
  readonly #v4: AppendedFile;
  readonly #v3: AppendedFile;
  readonly #site: SiteSpill | undefined;
  #hasThemes = false;

  constructor(context: HostStreamContext) {
    this.#context = context;
    // The stats entries of names the host has no package of are known once it is read: finish's caller sets them.
    this.#state = newHostState([], []);
    this.#state.columns = new Float64Array(context.expected * INDEX_COLUMNS);
    const { writer, host, hostsDefault } = context;
    const today = todayFiles(host.id, hostsDefault);
    this.#v1 = writer.append(fileFor("packages", { host: host.id }));
    this.#v4 = writer.append(today.v4.contents);
    this.#v3 = writer.append(today.v3.contents);
    for (const list of [this.#v1, this.#v4, this.#v3]) list.add("[");
    if (context.site) this.#site = new SiteSpill(context.site.workDir, context.host.id, context.expected);
  }

  /** Writes one package, the next in name order. */
  add(pkg: RenderedPackage, signature: Signature): void {
    checkMemory("writing the packages");
    const { writer, host, urls } = this.#context;
    const i = this.#count++;
    writer.write({ path: fileFor("package", { host: host.id, name: pkg.name }), content: pkg.json });
    const fragments = renderTodayFragments(pkg.today, host.id, urls);
    const comma = i === 0 ? "" : ",";
    this.#v1.add(comma + pkg.json);
    this.#v4.add(comma + fragments.v4);
    this.#v3.add(comma + fragments.v3);
    this.#hasThemes ||= pkg.category === "themes";
    this.#grow(i + 1);
    this.#state.names.push(pkg.name);
    setPackage(this.#state, i, signature, pkg.json.length, {
      category: pkg.category,
      coder: pkg.coder,
      stats: pkg.stats,
      fragments: {
        v4: { length: fragments.v4.length },
        v3: { length: fragments.v3.length },
        featured: fragments.featured,
      },
    });
    const site = this.#context.site;
    if (site && this.#site) {
      const p = sitePackage(host.id, JSON.parse(pkg.json) as Package, site.files);
      writer.write({ path: packagePage(host.id, pkg.name), content: renderPackagePage(site.host, p) });
      this.#site.add(i, p.display_name, p.release_date, p.updated, renderCard(host.id, p), searchRecord(host.id, p));
    }
  }

  /**
   * Ends the host's lists and writes the files that depend on all its packages. Returns its index
   * and, with the site, its spill as the site's assembler reads it (spill.close() after).
   */
  finish(): { state: HostState; spilled?: SpilledHost & { close(): void } } {
    const { writer, host, hostsDefault } = this.#context;
    for (const list of [this.#v1, this.#v4, this.#v3]) {
      list.add("]");
      list.close();
    }
    const state = this.#state;
    // Cut to the packages there are (a manifest that failed has none); no copy when every one is there.
    if (state.columns.length !== this.#count * INDEX_COLUMNS)
      state.columns = state.columns.slice(0, this.#count * INDEX_COLUMNS);
    writer.write({ path: fallbackFor("category", { host: host.id }), content: "[]" });
    this.#filteredLists(state);
    const today = todayFiles(host.id, hostsDefault);
    const information = renderInformation(host, state.names.length, this.#hasThemes);
    writer.write({ path: today.v4.information, content: information });
    writer.write({ path: today.v3.information, content: information });
    const candidates: number[] = [];
    for (let i = 0; i < state.names.length; i++) if (featuredAt(state, i)) candidates.push(i);
    const pick = featuredPick(candidates.length, this.#context.featuredMs);
    if (pick !== undefined) {
      const at = candidates[pick]!;
      for (const kind of ["v4", "v3"] as const) {
        const offsets = [1, 0];
        for (let i = 0; i < at; i++) offsets[0]! += lengthAt(state, i, kind) + 1;
        offsets[1] = offsets[0]! + lengthAt(state, at, kind);
        writer.writeRanges(today[kind].featured, join(writer.root, today[kind].contents), [[offsets[0]!, offsets[1]]]);
      }
    }
    if (!this.#site) return { state };
    return { state, spilled: this.#site.finish(state) };
  }

  /**
   * The category, coder and category-coder lists: positions grouped by a counting sort over the
   * index's columns, each list then written as ranges of the host's new list (a run of neighbours,
   * commas and all, read as one range).
   */
  #filteredLists(state: HostState): void {
    const { writer, host } = this.#context;
    const count = state.names.length;
    const starts = new Float64Array(count);
    for (let i = 0, at = 1; i < count; i++) {
      starts[i] = at;
      at += lengthAt(state, i) + 1;
    }
    const files = filterKeys(host.id);
    // Each list by the key of its file, the pair's too: a counting sort of the positions by key.
    const keyOf = new Map<string, number>();
    const paths: string[] = [];
    const keys = new Int32Array(count * 3);
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
    for (const key of keys) sizes[key + 1]!++;
    for (let k = 1; k <= paths.length; k++) sizes[k]! += sizes[k - 1]!;
    const fill = sizes.slice(0, paths.length);
    const members = new Int32Array(keys.length);
    for (let i = 0; i < count; i++) for (let k = 0; k < 3; k++) members[fill[keys[i * 3 + k]!]!++] = i;
    const list = join(writer.root, fileFor("packages", { host: host.id }));
    paths.forEach((path, key) => {
      writer.writeRanges(path, list, listSources(members.subarray(sizes[key]!, sizes[key + 1]!), starts, state));
    });
  }

  #grow(count: number): void {
    const need = count * INDEX_COLUMNS;
    if (this.#state.columns.length >= need) return;
    const grown = new Float64Array(Math.max(need, this.#state.columns.length * 2));
    grown.set(this.#state.columns);
    this.#state.columns = grown;
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
 * A host's rows and search records in spill files, in name order, with what the site's index
 * keeps of each package; read back by offset (the prefix sums of their lengths).
 */
class SiteSpill {
  readonly #cardFd: number;
  readonly #recordFd: number;
  #pendingCards = "";
  #pendingRecords = "";
  #numbers: Float64Array;
  readonly #displays: string[] = [];

  constructor(workDir: string, host: string, expected: number) {
    this.#numbers = new Float64Array(expected * SITE_NUMBERS);
    this.#cardFd = openSync(join(workDir, `${host}.cards`), "w+");
    this.#recordFd = openSync(join(workDir, `${host}.records`), "w+");
  }

  add(i: number, display: string, release: number, updated: number, card: string, record: string): void {
    if (this.#numbers.length < (i + 1) * SITE_NUMBERS) {
      const grown = new Float64Array(Math.max((i + 1) * SITE_NUMBERS, this.#numbers.length * 2));
      grown.set(this.#numbers);
      this.#numbers = grown;
    }
    this.#displays.push(display);
    const at = i * SITE_NUMBERS;
    this.#numbers[at] = release;
    this.#numbers[at + 1] = updated;
    this.#numbers[at + 2] = card.length;
    this.#numbers[at + 3] = record.length;
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
    const count = state.names.length;
    const numbers = this.#numbers;
    const displays = this.#displays;
    const cardStarts = new Float64Array(count);
    const recordStarts = new Float64Array(count);
    for (let i = 0, card = 0, record = 0; i < count; i++) {
      cardStarts[i] = card;
      recordStarts[i] = record;
      card += numbers[i * SITE_NUMBERS + 2]!;
      record += numbers[i * SITE_NUMBERS + 3]!;
    }
    const [cardFd, recordFd] = [this.#cardFd, this.#recordFd];
    return {
      count,
      name: (i) => state.names[i]!,
      display: (i) => displays[i]!,
      category: (i) => filtersAt(state, i).category,
      coder: (i) => filtersAt(state, i).coder,
      release: (i) => numbers[i * SITE_NUMBERS]!,
      updated: (i) => numbers[i * SITE_NUMBERS + 1]!,
      cardLength: (i) => numbers[i * SITE_NUMBERS + 2]!,
      recordLength: (i) => numbers[i * SITE_NUMBERS + 3]!,
      card: (i) => readLatin1(cardFd, cardStarts[i]!, numbers[i * SITE_NUMBERS + 2]!),
      record: (i) => readLatin1(recordFd, recordStarts[i]!, numbers[i * SITE_NUMBERS + 3]!),
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
