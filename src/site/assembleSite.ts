// Over 300 lines: the one assembler of the browse site's pages, for a full build and a rebuild, whose
// listing, shard and home steps share the host's entries and the live pages they copy rows from.
// The browse site's listings, search and home page, assembled from the site index (siteIndex.ts)
// and the packages rendered anew, for a full build (no previous index: every package is new) and a
// rebuild alike. A kept package's row and search record are copied out of the live host page and
// shard as byte ranges (their offsets are prefix sums of the index's lengths), never parsed; a fresh
// one's were rendered by its host's pass (engine/streamHost.ts, which also writes its own page) and
// spilled, and are read back by offset as a page takes them. A page is rendered when its packages or
// its neighbours moved, or when it counts its listing's packages (a listing's first page); it is
// written only when its bytes differ.
import { createHash } from "node:crypto";
import { coderKey, utf8Bytes } from "../routes/filterValue.js";
import { asciiJson } from "../util/asciiJson.js";
import { compareCodePoints } from "../util/codePoints.js";
import { checkMemory } from "../util/memory.js";
import {
  HOME_NEWEST,
  renderHomePage,
  renderListingPage,
  type HomeHost,
  type HostSummary,
  type ListingPage,
  type NewestPackage,
  type SiteHost,
  type SitePackage,
} from "./renderPages.js";
import {
  CARD,
  CATEGORY,
  CODER,
  pageEnds,
  RECORD,
  RELEASE,
  SITE_COLUMNS,
  UPDATED,
  type SiteHostIndex,
  type SiteIndex,
} from "./siteIndex.js";
import { HOME_PAGE, linkTo, listingPage, searchIndex, searchShard, type Listing } from "./sitePaths.js";
import { compareForReading } from "./words.js";
import { sitePackage, type FilesSource } from "./sitePackage.js";

/** The live output's bytes, as far as a rebuild copies rows and records out of it or compares pages with it. */
export interface LiveSite {
  /** A file's bytes, or undefined when it is not there. */
  bytes(path: string): Uint8Array | undefined;
}

export interface SiteInput {
  hosts: readonly SiteHost[];
  /** Per host, the names of the previous index that are gone (those rendered anew are `spilled`). */
  gone: ReadonlyMap<string, ReadonlySet<string>>;
  /** Which packages have files, for the home page's icons. */
  files: FilesSource;
  /** A build with package files: the home page says where the Homebrew Browser reads. */
  hbb: boolean;
  /**
   * Per host whose pass rendered packages anew (engine/streamHost.ts; every package in a full
   * build): each one's row and search record in a spill file, read back by offset as a page takes
   * them, never held.
   */
  spilled: ReadonlyMap<string, SpilledHost>;
  /** Where each page goes as soon as it is assembled (the full build's writer); else into `writes`. */
  put?: (path: string, content: string) => void;
}

/** A host's fresh packages in name order, as its pass spilled them: what the site's index keeps of each, and its row and record. */
export interface SpilledHost {
  count: number;
  name(i: number): string;
  display(i: number): string;
  category(i: number): string;
  coder(i: number): string;
  release(i: number): number;
  updated(i: number): number;
  cardLength(i: number): number;
  recordLength(i: number): number;
  card(i: number): string;
  record(i: number): string;
}

/** The site's writes (content, or null to remove), how many files they add (negative when fewer), and the new index. */
export interface SiteOutput {
  writes: Map<string, string | null>;
  added: number;
  index: SiteIndex;
}

/** A package of a host's new list: kept from the previous index (its index there) or rendered anew. */
interface Entry {
  name: string;
  display: string;
  category: string;
  coder: string;
  release: number;
  updated: number;
  /** Its row's and its search record's lengths. */
  cardLength: number;
  recordLength: number;
  old?: number;
  /** Its place in its host's spill (SiteInput.spilled), whose row and record are read back as needed. */
  spill?: number;
  card?: string;
  record?: string;
}

/** The site's pages for the input; with a previous build's index and live output, only those that change. */
export function assembleSite(input: SiteInput, previous?: { index: SiteIndex; live: LiveSite }): SiteOutput {
  const writes = new Map<string, string | null>();
  let added = 0;
  const put = (path: string, content: string) => {
    if (input.put) {
      input.put(path, content);
      return;
    }
    const before = previous?.live.bytes(path);
    if (before && before.length === content.length && Buffer.from(content, "latin1").equals(before)) return;
    writes.set(path, content);
    if (!before) added++;
  };
  const remove = (path: string) => {
    if (!previous?.live.bytes(path)) return;
    writes.set(path, null);
    added--;
  };
  const index: SiteIndex = { hosts: [...input.hosts], packages: {} };
  const home: HomeHost[] = [];
  for (const host of input.hosts) {
    const old = previous?.index.packages[host.id];
    const gone = input.gone.get(host.id) ?? new Set<string>();
    const spilled = input.spilled.get(host.id);
    const entries = entriesOf(old, spilled, gone);
    home.push(homeHost(host, entries, input.files));
    if (old && !spilled && gone.size === 0) {
      index.packages[host.id] = old;
      continue;
    }
    const rows = new HostRows(host.id, old, previous?.live, spilled);
    const shards = assembleHost(host, entries, old, rows, { put, remove });
    index.packages[host.id] = indexOf(entries, shards);
  }
  put(HOME_PAGE, renderHomePage(home, input.hbb));
  return { writes, added, index };
}

/**
 * A host's packages now, in reading order: those of the previous index that stay (neither gone nor
 * rendered anew), and the fresh ones of its spill.
 */
function entriesOf(
  old: SiteHostIndex | undefined,
  spilled: SpilledHost | undefined,
  gone: ReadonlySet<string>,
): Entry[] {
  const fresh: Entry[] = [];
  const freshNames = new Set<string>();
  for (let k = 0; k < (spilled?.count ?? 0); k++) {
    checkMemory("assembling the browse site");
    fresh.push(new SpilledEntry(spilled!, k));
    // Only a rebuild's few fresh names are held: a full build has no previous index to look them up in.
    if (old) freshNames.add(spilled!.name(k));
  }
  fresh.sort(byReading);
  if (!old) return fresh;
  const kept: Entry[] = [];
  for (let i = 0; i < old.names.length; i++) {
    checkMemory("assembling the browse site");
    const name = old.names[i]!;
    if (!gone.has(name) && !freshNames.has(name)) kept.push(new KeptEntry(old, i));
  }
  if (fresh.length === 0) return kept;
  const all: Entry[] = [];
  let i = 0;
  let j = 0;
  while (i < kept.length || j < fresh.length)
    all.push(j >= fresh.length || (i < kept.length && byReading(kept[i]!, fresh[j]!) < 0) ? kept[i++]! : fresh[j++]!);
  return all;
}

/**
 * A package the previous index has and the rebuild keeps: its place there, whose columns it reads
 * when asked (a host of a million packages, one of them edited, costs a small object each).
 */
class KeptEntry implements Entry {
  card?: string;
  record?: string;
  constructor(
    private readonly from: SiteHostIndex,
    readonly old: number,
  ) {}
  get name(): string {
    return this.from.names[this.old]!;
  }
  get display(): string {
    return this.from.displays[this.old]!;
  }
  get category(): string {
    return this.from.values[this.from.columns[this.old * SITE_COLUMNS + CATEGORY]!]!;
  }
  get coder(): string {
    return this.from.values[this.from.columns[this.old * SITE_COLUMNS + CODER]!]!;
  }
  get release(): number {
    return this.from.columns[this.old * SITE_COLUMNS + RELEASE]!;
  }
  get updated(): number {
    return this.from.columns[this.old * SITE_COLUMNS + UPDATED]!;
  }
  get cardLength(): number {
    return this.from.columns[this.old * SITE_COLUMNS + CARD]!;
  }
  get recordLength(): number {
    return this.from.columns[this.old * SITE_COLUMNS + RECORD]!;
  }
}

/**
 * A spilled package as an entry: its place in the spill, whose columns it reads when asked, so a
 * host of a million packages costs a small object each, not a copy of its strings and numbers.
 */
class SpilledEntry implements Entry {
  constructor(
    private readonly from: SpilledHost,
    readonly spill: number,
  ) {}
  get name(): string {
    return this.from.name(this.spill);
  }
  get display(): string {
    return this.from.display(this.spill);
  }
  get category(): string {
    return this.from.category(this.spill);
  }
  get coder(): string {
    return this.from.coder(this.spill);
  }
  get release(): number {
    return this.from.release(this.spill);
  }
  get updated(): number {
    return this.from.updated(this.spill);
  }
  get cardLength(): number {
    return this.from.cardLength(this.spill);
  }
  get recordLength(): number {
    return this.from.recordLength(this.spill);
  }
}

function byReading(a: Entry, b: Entry): number {
  return compareForReading(
    { display_name: a.display, internal_name: a.name },
    { display_name: b.display, internal_name: b.name },
  );
}

/** The host's new index: its entries' names and values, and their rows' and records' lengths. */
function indexOf(entries: readonly Entry[], shards: string[]): SiteHostIndex {
  const values: string[] = [];
  const at = new Map<string, number>();
  const intern = (v: string) => {
    let k = at.get(v);
    if (k === undefined) at.set(v, (k = values.push(v) - 1));
    return k;
  };
  const columns = new Float64Array(entries.length * SITE_COLUMNS);
  const names: string[] = [];
  const displays: string[] = [];
  entries.forEach((e, i) => {
    checkMemory("assembling the browse site");
    names.push(e.name);
    displays.push(e.display);
    const c = i * SITE_COLUMNS;
    columns[c + CATEGORY] = intern(e.category);
    columns[c + CODER] = intern(e.coder);
    columns[c + RELEASE] = e.release;
    columns[c + UPDATED] = e.updated;
    columns[c + CARD] = e.cardLength;
    columns[c + RECORD] = e.recordLength;
  });
  return { names, displays, values, columns, shards };
}

/**
 * The rows and records of a host's previous build, cut out of its live pages and shards: package i of
 * the previous index is on the page its pageEnds give, at the page's first row plus the lengths of the
 * rows before it on that page; its record likewise in that page's shard, after "[" and the commas.
 */
class HostRows {
  private readonly page: Int32Array;
  private readonly offset: Float64Array;
  private readonly recordOffset: Float64Array;
  private readonly starts: number[];
  private readonly files = new Map<string, Uint8Array>();

  constructor(
    private readonly host: string,
    private readonly old: SiteHostIndex | undefined,
    private readonly live: LiveSite | undefined,
    private readonly spilled?: SpilledHost | undefined,
  ) {
    const count = old?.names.length ?? 0;
    this.page = new Int32Array(count);
    this.offset = new Float64Array(count);
    this.recordOffset = new Float64Array(count);
    this.starts = [];
    if (!old) return;
    let start = 0;
    pageEnds(count, (i) => old.names[i]!).forEach((end, k) => {
      this.starts.push(start);
      for (let i = start, card = 0, record = 1; i < end; i++) {
        this.page[i] = k;
        this.offset[i] = card;
        this.recordOffset[i] = record;
        card += old.columns[i * SITE_COLUMNS + CARD]!;
        record += old.columns[i * SITE_COLUMNS + RECORD]! + 1;
      }
      start = end;
    });
  }

  /** Old package i's row, as the host's live page holds it. */
  card(i: number): string {
    const k = this.page[i]!;
    const path = listingPage({ kind: "host", host: this.host }, k === 0 ? undefined : this.old!.names[this.starts[k]!]);
    const bytes = this.file(path);
    const start = listStart(bytes, path) + this.offset[i]!;
    return latin1(bytes, start, start + this.old!.columns[i * SITE_COLUMNS + CARD]!);
  }

  /** Spilled package i's row. */
  spilledCard(i: number): string {
    return this.spilled!.card(i);
  }

  /** Spilled package i's search record. */
  spilledRecord(i: number): string {
    return this.spilled!.record(i);
  }

  /** Old package i's search record, as its live shard holds it. */
  record(i: number): string {
    const bytes = this.file(searchShard(this.host, this.old!.shards[this.page[i]!]!));
    const start = this.recordOffset[i]!;
    return latin1(bytes, start, start + this.old!.columns[i * SITE_COLUMNS + RECORD]!);
  }

  private file(path: string): Uint8Array {
    let bytes = this.files.get(path);
    if (!bytes) {
      bytes = this.live?.bytes(path);
      if (!bytes) throw new Error(`internal: the site index names ${path}, which the live output lacks`);
      this.files.set(path, bytes);
    }
    return bytes;
  }
}

const LIST_START = Buffer.from('<ul class="apps">\n', "latin1");

/** Where a listing page's rows start: after its one list of apps (escaped text never holds a `<`). */
function listStart(bytes: Uint8Array, path: string): number {
  const at = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(LIST_START);
  if (at < 0) throw new Error(`internal: ${path} has no list of apps`);
  return at + LIST_START.length;
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1", start, end);
}

interface Out {
  put(path: string, content: string): void;
  remove(path: string): void;
}

/** What a host's listings share: its entries now, its names before, each entry's row and where pages go. */
interface Listings {
  host: SiteHost;
  entries: readonly Entry[];
  oldNames: readonly string[];
  card: (e: Entry) => string;
  out: Out;
}

/**
 * A dirty host's pages: its own listing and search shards, and the listings of the categories and
 * coders its changed packages were or are in. Returns the hashes of its shards, in page order.
 */
function assembleHost(
  host: SiteHost,
  entries: Entry[],
  old: SiteHostIndex | undefined,
  rows: HostRows,
  out: Out,
): string[] {
  // A spilled row is read back each time a page takes it: kept, every row would be held at the end.
  const card = (e: Entry) =>
    e.card ?? (e.spill !== undefined ? rows.spilledCard(e.spill) : (e.card = rows.card(e.old!)));
  const oldNames = old?.names ?? [];
  const all = entries.map((_, i) => i);
  const oldAll = oldNames.map((_, i) => i);
  const hostListing: Listing = { kind: "host", host: host.id };
  const listings: Listings = { host, entries, oldNames, card, out };
  const pages = assembleListing(listings, hostListing, all, oldAll, summarize(entries));

  // The search index: a shard per page of the host's list, kept while its packages are.
  const shards = pages.map(({ members, same }) => {
    if (same !== undefined) return old!.shards[same]!;
    const records = members.map((i) => {
      const e = entries[i]!;
      return e.record ?? (e.spill !== undefined ? rows.spilledRecord(e.spill) : (e.record = rows.record(e.old!)));
    });
    const content = `[${records.join(",")}]`;
    const hash = createHash("sha256").update(content).digest("hex").slice(0, 20);
    out.put(searchShard(host.id, hash), content);
    return hash;
  });
  for (const hash of new Set(old?.shards ?? [])) if (!shards.includes(hash)) out.remove(searchShard(host.id, hash));
  out.put(searchIndex(host.id), searchManifest(host.id, entries, shards));

  // The category and coder listings that a changed package was or is in (every one, in a full build).
  const touched = { category: new Map<string, Members>(), coder: new Map<string, Members>() };
  const touch = (kind: keyof typeof touched, value: string) => {
    if (!touched[kind].has(value)) touched[kind].set(value, { now: [], before: [] });
  };
  for (const e of entries) {
    if (e.spill === undefined) continue;
    touch("category", e.category);
    touch("coder", e.coder);
  }
  const kept = new Uint8Array(oldNames.length);
  for (const e of entries) if (e.old !== undefined) kept[e.old] = 1;
  const oldValue = (i: number, column: number) => old!.values[old!.columns[i * SITE_COLUMNS + column]!]!;
  for (let i = 0; i < oldNames.length; i++) {
    if (kept[i]) continue;
    touch("category", oldValue(i, CATEGORY));
    touch("coder", oldValue(i, CODER));
  }
  entries.forEach((e, i) => {
    checkMemory("assembling the browse site");
    touched.category.get(e.category)?.now.push(i);
    touched.coder.get(e.coder)?.now.push(i);
  });
  // The previous index's values, each once: a lookup per package by its interned index, not its string.
  const oldLists = (kind: keyof typeof touched) => old?.values.map((v) => touched[kind].get(v)) ?? [];
  const [oldCategories, oldCoders] = [oldLists("category"), oldLists("coder")];
  for (let i = 0; i < oldNames.length; i++) {
    oldCategories[old!.columns[i * SITE_COLUMNS + CATEGORY]!]?.before.push(i);
    oldCoders[old!.columns[i * SITE_COLUMNS + CODER]!]?.before.push(i);
  }
  for (const [category, { now, before }] of touched.category)
    assembleListing(listings, { kind: "category", host: host.id, category }, now, before);
  for (const [coder, { now, before }] of touched.coder)
    assembleListing(listings, { kind: "coder", host: host.id, coder }, now, before);
  return shards;
}

/** A listing's members now (indices into the entries) and in the previous index, in reading order. */
interface Members {
  now: number[];
  before: number[];
}

/** A page of a listing as assembled: its members (indices into the entries), and the old page it equals. */
interface AssembledPage {
  members: number[];
  /** The index of the previous build's page with the same members, all kept, when there is one. */
  same: number | undefined;
}

/**
 * A listing's pages: `members` index the entries, `oldMembers` the previous index (in reading order
 * both). A page whose members and neighbours are those of the previous build's page at its path is
 * left as it is; the first page, which counts the listing, is always rendered (and written only when
 * it differs); the previous pages no longer there are removed.
 */
function assembleListing(
  listings: Listings,
  listing: Listing,
  members: readonly number[],
  oldMembers: readonly number[],
  summary?: HostSummary,
): AssembledPage[] {
  const { host, entries, oldNames, card, out } = listings;
  const layout = (count: number, nameAt: (i: number) => string) => {
    const ends = pageEnds(count, nameAt);
    return ends.map((end, k) => ({ start: k === 0 ? 0 : ends[k - 1]!, end }));
  };
  const now = layout(members.length, (i) => entries[members[i]!]!.name);
  const before = layout(oldMembers.length, (i) => oldNames[oldMembers[i]!]!);
  // A page's first package (undefined for the first page, and past the last).
  const firstOf = (k: number, names: (i: number) => string, pages: { start: number }[]) =>
    k === 0 || k >= pages.length ? undefined : names(pages[k]!.start);
  const nowName = (i: number) => entries[members[i]!]!.name;
  const oldName = (i: number) => oldNames[oldMembers[i]!]!;
  const oldPages = new Map<string | undefined, number>(before.map((_, k) => [firstOf(k, oldName, before), k]));
  const paths = new Set<string>();
  const assembled: AssembledPage[] = [];
  now.forEach(({ start, end }, k) => {
    const first = firstOf(k, nowName, now);
    const path = listingPage(listing, first);
    if (members.length > 0) paths.add(path);
    const pageMembers = members.slice(start, end);
    const o = members.length === 0 ? undefined : oldPages.get(first);
    const same =
      o !== undefined &&
      before[o]!.end - before[o]!.start === pageMembers.length &&
      pageMembers.every((m, i) => entries[m]!.old === oldMembers[before[o]!.start + i]);
    const neighbours =
      same &&
      firstOf(o + 1, oldName, before) === firstOf(k + 1, nowName, now) &&
      (o > 0 ? firstOf(o - 1, oldName, before) : "") === (k > 0 ? firstOf(k - 1, nowName, now) : "");
    assembled.push({ members: pageMembers, same: same ? o : undefined });
    if (members.length === 0 || (neighbours && k > 0)) return;
    const page: ListingPage = {
      first,
      from: entries[pageMembers[0]!]?.display ?? "",
      to: entries[pageMembers[pageMembers.length - 1]!]?.display ?? "",
      cards: pageMembers.map((m) => card(entries[m]!)).join(""),
      ...(k > 0 ? { previous: k === 1 ? null : nowName(now[k - 1]!.start) } : {}),
      ...(k < now.length - 1 ? { next: nowName(now[k + 1]!.start) } : {}),
      ...(k === 0 ? { count: members.length, ...(summary ? { summary } : {}) } : {}),
    };
    out.put(path, renderListingPage(host, listing, page));
  });
  if (listing.kind === "host" && members.length === 0) {
    // A host with no package still has its page, which says so.
    out.put(
      listingPage(listing),
      renderListingPage(host, listing, {
        first: undefined,
        from: "",
        to: "",
        cards: "",
        count: 0,
        ...(summary ? { summary } : {}),
      }),
    );
    paths.add(listingPage(listing));
  }
  before.forEach((_, k) => {
    const path = listingPage(listing, firstOf(k, oldName, before));
    if (!paths.has(path)) out.remove(path);
  });
  return assembled;
}

/** How many coders the host page names: the most prolific, so a host of thousands stays light. */
const TOP_CODERS = 20;

/** The host's categories and its most prolific coders, with their counts. */
function summarize(entries: readonly Entry[]): HostSummary {
  const categories = new Map<string, number>();
  const coders = new Map<string, number>();
  for (const p of entries) {
    categories.set(p.category, (categories.get(p.category) ?? 0) + 1);
    coders.set(p.coder, (coders.get(p.coder) ?? 0) + 1);
  }
  return {
    categories: [...categories]
      .sort(([a], [b]) => compareCodePoints(a, b))
      .map(([category, count]) => ({ category, count })),
    topCoders: [...coders]
      .sort(([a, m], [b, n]) => n - m || compareCodePoints(a, b))
      .slice(0, TOP_CODERS)
      .map(([coder, count]) => ({ coder, count })),
    coders: coders.size,
  };
}

/**
 * A package's record in its host's search shard, for assets/search.js: [name, display name, coder,
 * category, short description], and, when it has files, its stored icon relative to the host's
 * folder (as the lists link it). A package without files shows the site's placeholder.
 */
export function searchRecord(host: string, p: SitePackage): string {
  const record = [p.internal_name, p.display_name, p.coder, p.category, p.short_description];
  if (p.files) record.push(linkTo(searchIndex(host), p.files.iconFile));
  return asciiJson(record);
}

/** The host's search manifest: its categories, its coders with the keys of their pages, and its shards in page order. */
function searchManifest(host: string, entries: readonly Entry[], shards: readonly string[]): string {
  const categories = [...new Set(entries.map((e) => e.category))].sort(compareCodePoints);
  const coders = [...new Set(entries.map((e) => e.coder))].sort(compareCodePoints);
  return asciiJson({
    categories,
    coders: coders.map((c) => [c, coderKey(utf8Bytes(c))]),
    shards: shards.map((hash) => linkTo(searchIndex(host), searchShard(host, hash))),
  });
}

/** A host on the home page: its count and its newest releases (by release date, then as the list reads). */
function homeHost(host: SiteHost, entries: readonly Entry[], files: FilesSource): HomeHost {
  const newest: Entry[] = [];
  for (const e of entries) {
    // Entries are in reading order: a later one goes before an earlier one only when it is newer.
    let at = newest.length;
    while (at > 0 && newest[at - 1]!.release < e.release) at--;
    if (at < HOME_NEWEST) newest.splice(at, 0, e);
    if (newest.length > HOME_NEWEST) newest.pop();
  }
  return {
    host,
    count: entries.length,
    newest: newest.map((e): NewestPackage =>
      sitePackage(
        host.id,
        {
          internal_name: e.name,
          display_name: e.display,
          category: e.category,
          coder: e.coder,
          release_date: e.release,
        },
        files,
      ),
    ),
  };
}
