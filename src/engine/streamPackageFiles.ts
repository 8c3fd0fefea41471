// The package files' part of a host's pass, for a full build and a rebuild alike: told each package
// as it passes in name order (fresh: rendered as it is loaded or read again; kept: a rebuild's, from
// the index; removed: a rebuild's, gone), and keeping of it only what the index keeps. A fresh
// package's stored files (the archive, icon, binary and meta.xml, and their aliases for a target that
// serves them from copies) are written at once, its memo goes to the state, its own warnings in the
// Homebrew Browser's list are taken, and its entry joins its host's picks (render/renderHbb.ts's
// HbbLists, a heap a category); a kept package joins them by the index's columns, its entry made
// from its manifest only if the list keeps it. Once every package has passed, each host's list and
// icon archive are made from the picks, the same way in both builds (`surface`).
//
// What differs is where the writes go, the writer's policy: a full build writes every file into the
// spare slot; a rebuild (`last`) gathers what differs from the live slot (a stored file whose bytes
// are the live one's is not written; one the package no longer has is deleted), to be carried out
// with the rest of its plan.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HostInfo } from "../catalogue/fields.js";
import type { Problem } from "../catalogue/problems.js";
import { needsAliasFiles } from "../output/storedPackageFiles.js";
import type { FileContent, OutputFile, PackageFilesMemo, RenderedPackage } from "../render/renderApi.js";
import {
  HbbLists,
  hbbSourceOf,
  isHbbCandidate,
  renderHbbHost,
  renderRepoList,
  type HbbEntry,
} from "../render/renderHbb.js";
import { HBB_REPO_LIST } from "../routes/hbbRoutes.js";
import { aliasFilesOf } from "../routes/routeTable.js";
import type { FilesSource } from "../site/sitePackage.js";
import type { TargetId } from "../targets/target.js";
import type { SlotWriter } from "../write/slotWriter.js";
import type { LiveFiles } from "./liveFiles.js";
import { packageFilePaths } from "../routes/packageFileLayout.js";

/** A rebuild's package files as the last build left them, and how its writes are told from the live slot's files. */
export interface LastPackageFiles {
  /** The last build's memos (the kept packages whose files moved with their content: with their signatures now). */
  memos: Readonly<Record<string, PackageFilesMemo>>;
  /** The last build's targets: the aliases' links go when the last target that needed them does. */
  targets: readonly TargetId[];
  live: Pick<LiveFiles, "exists">;
  /** Whether the live file at `path` holds the bytes of the file `file`. */
  sameBytes: (path: string, file: string) => boolean;
}

/** What the state remembers of a package's files: its memo, with where its stored files are. */
export function memoOf(host: string, defaultHost: string, pkg: RenderedPackage): PackageFilesMemo | undefined {
  const stored = pkg.stored;
  if (!stored) return undefined;
  const paths = packageFilePaths(host, defaultHost, pkg.name, stored.binary.name);
  return {
    ...stored.memo,
    paths: {
      archive: paths.archive,
      icon: paths.icon,
      binary: paths.binary,
      ...(stored.meta !== undefined ? { meta: paths.meta } : {}),
    },
  };
}

/** What a package's stored files are, by kind. */
type Kind = keyof PackageFilesMemo["paths"];
const KINDS: readonly Kind[] = ["archive", "icon", "binary", "meta"];

export class PackageFilesStream {
  readonly #writer: SlotWriter | undefined;
  readonly #last: LastPackageFiles | undefined;
  readonly #defaultHost: string;
  readonly #aliases: boolean;
  readonly #aliasesBefore: boolean;
  /** Where the stored files of packages not written by this build are: the slot written (full build) or the live one. */
  readonly #readFrom: string;
  readonly #lists = new HbbLists();
  /** Per host, the packages with files, whose icons its archive holds. */
  readonly #icons = new Map<string, string[]>();
  /** A rebuild's fresh packages' icons, by `host/name`: the files they were made or linked from. */
  readonly #freshIcons = new Map<string, string>();
  /** Hosts a package passed in (a rebuild makes again only their lists). */
  readonly #passed = new Set<string>();
  /** Each package's memo, by `host/name`: what the state remembers of its files. */
  readonly memos: Record<string, PackageFilesMemo>;
  /** Packages whose files this build read (the others' were the live slot's, linked). */
  read = 0;
  /** A rebuild's writes: path -> new content, or null to delete it. */
  readonly writes = new Map<string, OutputFile["content"] | null>();
  /** A rebuild's count of files its writes add to the live slot (negative when they remove more). */
  added = 0;
  /** A rebuild's packages (`host/name`) whose stored files moved. */
  readonly moved = new Set<string>();

  /**
   * A full build gives the `writer` of its spare slot; a rebuild the live slot's folder (`readFrom`)
   * and `last`. `targets` are this build's.
   */
  constructor(
    to: { writer: SlotWriter } | { readFrom: string; last: LastPackageFiles },
    defaultHost: string,
    targets: readonly TargetId[],
  ) {
    this.#defaultHost = defaultHost;
    this.#aliases = needsAliasFiles(targets);
    if ("writer" in to) {
      this.#writer = to.writer;
      this.#readFrom = to.writer.root;
      this.memos = {};
      this.#aliasesBefore = false;
    } else {
      this.#last = to.last;
      this.#readFrom = to.readFrom;
      this.memos = { ...to.last.memos };
      this.#aliasesBefore = needsAliasFiles(to.last.targets);
    }
  }

  /** What the site shows of each package's files: from the memos as they stand. */
  get filesSource(): FilesSource {
    const memos = this.memos;
    return {
      defaultHost: this.#defaultHost,
      of(host, name) {
        const memo = memos[`${host}/${name}`];
        return memo && { zipSize: memo.derived.zip_size, icon: memo.derived.icon !== undefined };
      },
    };
  }

  /** A fresh package: its stored files written (where they differ from the live slot's, in a rebuild), its list entry taken. */
  add(host: string, pkg: RenderedPackage): void {
    this.#passed.add(host);
    this.#lists.add(host, hbbSourceOf(pkg));
    const key = `${host}/${pkg.name}`;
    const old = this.memos[key];
    const now = memoOf(host, this.#defaultHost, pkg);
    const stored = pkg.stored;
    if (!now || !stored) {
      if (old) this.moved.add(key);
      this.#drop(key);
      return;
    }
    if (stored.archive.link !== true) this.read++;
    if (this.#last) this.#freshIcons.set(key, stored.icon.file);
    const contents: Record<Kind, FileContent | undefined> = {
      archive: stored.archive,
      icon: stored.icon,
      binary: stored.binary.content,
      meta: stored.meta,
    };
    this.#drop(key, new Set(KINDS.map((kind) => now.paths[kind]).filter((p): p is string => p !== undefined)));
    this.memos[key] = now;
    this.#iconsOf(host).push(pkg.name);
    for (const kind of KINDS) {
      const path = now.paths[kind];
      const content = contents[kind];
      if (path === undefined || content === undefined) continue;
      if (old && this.#unchanged(kind, old, now, content, path)) continue;
      this.#putStored(path, content);
      if (this.#last) this.moved.add(key);
    }
  }

  /** A rebuild's kept package, by what the index records of it: its icon, and its candidacy in its host's list. */
  keep(host: string, name: string, category: string, downloads: number): void {
    this.#passed.add(host);
    if (!this.memos[`${host}/${name}`]) return;
    this.#iconsOf(host).push(name);
    if (isHbbCandidate(name, category)) this.#lists.keep(host, { name, category, downloads });
  }

  /** A rebuild's package that is gone: its stored files with it. */
  remove(host: string, name: string): void {
    this.#passed.add(host);
    this.#drop(`${host}/${name}`);
  }

  /** Whether a package of `host` passed (a rebuild makes again only those hosts' lists). */
  passed(host: string): boolean {
    return this.#passed.has(host);
  }

  /**
   * A rebuild whose targets moved whether the aliases' links are needed: the first target that serves
   * them from copies links every stored file at them, the last one's going removes them. Returns how
   * many links went.
   */
  aliasesMoved(): number {
    if (this.#aliases === this.#aliasesBefore) return 0;
    let gone = 0;
    for (const memo of Object.values(this.memos)) {
      for (const kind of KINDS) {
        const path = memo.paths[kind];
        if (path === undefined) continue;
        for (const alias of aliasFilesOf(path)) {
          if (this.writes.has(alias)) continue;
          this.#put(alias, this.#aliases ? { sameAs: path } : null);
          if (!this.#aliases) gone++;
        }
      }
    }
    return gone;
  }

  /**
   * The Homebrew Browser's files of `hosts` once every package has passed: the repository list (when
   * `repoList`), each host's list and icon archive (its icons read one at a time, the archive written
   * into `workDir` to be moved in), with every warning of them: the packages' own that passed, the
   * repository list's, each category that lost apps. A kept app the list holds has its entry made by
   * `entryOf` (a rebuild's, from its manifest).
   */
  surface(
    hosts: readonly HostInfo[],
    made: {
      repoList: readonly HostInfo[] | undefined;
      workDir: string;
      entryOf?: (host: string, name: string) => HbbEntry;
    },
  ): { files: OutputFile[]; problems: Problem[] } {
    const files: OutputFile[] = [];
    const problems = [...this.#lists.problems];
    if (made.repoList) {
      const repoList = renderRepoList(made.repoList, this.#defaultHost);
      files.push({ path: HBB_REPO_LIST, content: repoList.text });
      problems.push(...repoList.problems);
    }
    for (const { id } of hosts) {
      const list = this.#lists.result(id, made.entryOf && ((name) => made.entryOf!(id, name)));
      problems.push(...list.problems);
      const icon = (name: string) => {
        const key = `${id}/${name}`;
        const memo = this.memos[key];
        return memo && readFileSync(this.#freshIcons.get(key) ?? join(this.#readFrom, memo.paths.icon));
      };
      files.push(
        ...renderHbbHost(
          id,
          this.#defaultHost,
          { entries: list.entries, icons: this.#icons.get(id) ?? [] },
          icon,
          made.workDir,
        ),
      );
    }
    return { files, problems };
  }

  #iconsOf(host: string): string[] {
    let icons = this.#icons.get(host);
    if (!icons) this.#icons.set(host, (icons = []));
    return icons;
  }

  /**
   * Whether a stored file read again holds what the live slot has at the same path: the archive and
   * the binary by the hash and size the files derived (the live one's are in the old memo), the icon
   * and meta.xml, small files, by their bytes. Never in a full build, which writes every file.
   */
  #unchanged(kind: Kind, old: PackageFilesMemo, now: PackageFilesMemo, content: FileContent, path: string): boolean {
    const last = this.#last;
    if (!last || old.paths[kind] !== path || !last.live.exists(path)) return false;
    if (content.link === true) return true;
    if (kind === "archive")
      return old.derived.zip_sha256 === now.derived.zip_sha256 && old.derived.zip_size === now.derived.zip_size;
    if (kind === "binary")
      return (
        old.derived.binary.sha256 === now.derived.binary.sha256 && old.derived.binary.size === now.derived.binary.size
      );
    return last.sameBytes(path, content.file);
  }

  /** A package's stored files that it no longer has (all of them, but those at `keep`) deleted, its memo with them. */
  #drop(key: string, keep: ReadonlySet<string> = new Set()): void {
    const old = this.memos[key];
    if (!old) return;
    for (const kind of KINDS) {
      const path = old.paths[kind];
      if (path !== undefined && !keep.has(path)) this.#putStored(path, null);
    }
    delete this.memos[key];
  }

  /**
   * A stored file and, for a target that serves the aliases from copies, its links at the aliases'
   * paths: written again (after it) whenever it is, gone with it.
   */
  #putStored(path: string, content: FileContent | null): void {
    this.#put(path, content);
    if (this.#aliases || (this.#aliasesBefore && content === null))
      for (const alias of aliasFilesOf(path)) this.#put(alias, content === null ? null : { sameAs: path });
  }

  /** A write, by the writer's policy: into the spare slot at once, or gathered against the live slot. */
  #put(path: string, content: OutputFile["content"] | null): void {
    if (this.#writer) {
      if (content !== null) this.#writer.write({ path, content });
      return;
    }
    const writes = this.writes;
    if (writes.get(path) === null && content === null) return;
    const existed = writes.has(path) ? writes.get(path) !== null : this.#last!.live.exists(path);
    writes.set(path, content);
    if (content === null && existed) this.added--;
    if (content !== null && !existed) this.added++;
  }
}
