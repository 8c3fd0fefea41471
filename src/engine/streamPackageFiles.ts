// The full build's part for the package files and the Homebrew Browser's surface, told each package
// as it streams by (engine/fullBuild.ts) and keeping of it only what the index keeps: its stored
// files are written into the slot at once (the archive, icon, binary and meta.xml, and their aliases
// for a target that serves them from copies), its memo goes to the state, its own warnings in the
// Homebrew Browser's list are taken, and its entry joins its host's picks (render/renderHbb.ts's
// HbbLists, a heap a category). Once every package has passed, each host's list and icon archive
// are made from the picks and the icons in the slot, as the rebuild makes them (engine/planHbb.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HostInfo } from "../catalogue/fields.js";
import type { Problem } from "../catalogue/problems.js";
import { needsAliasFiles } from "../output/storedPackageFiles.js";
import type { OutputFile, PackageFilesMemo, RenderedPackage } from "../render/renderApi.js";
import { HbbLists, hbbSourceOf, hbbStubFiles, renderHbbHost } from "../render/renderHbb.js";
import { HBB_REPO_LIST } from "../routes/hbbRoutes.js";
import { aliasFilesOf } from "../routes/routeTable.js";
import type { TargetId } from "../targets/target.js";
import type { SlotWriter } from "../write/slotWriter.js";
import { memoOf } from "./planPackageFiles.js";

export class PackageFilesStream {
  readonly #writer: SlotWriter;
  readonly #defaultHost: string;
  readonly #aliases: boolean;
  readonly #lists = new HbbLists();
  /** Per host, the packages with files, whose icons its archive holds. */
  readonly #icons = new Map<string, string[]>();
  /** Each package's memo, by `host/name`: what the state remembers of its files. */
  readonly memos: Record<string, PackageFilesMemo> = {};
  /** Packages whose files this build read (the others' were the live slot's, linked). */
  read = 0;

  constructor(writer: SlotWriter, defaultHost: string, targets: readonly TargetId[]) {
    this.#writer = writer;
    this.#defaultHost = defaultHost;
    this.#aliases = needsAliasFiles(targets);
  }

  /** Writes a package's stored files and takes what its host's list needs of it. */
  add(host: string, pkg: RenderedPackage): void {
    this.#lists.add(host, hbbSourceOf(pkg));
    const memo = memoOf(host, this.#defaultHost, pkg);
    const stored = pkg.stored;
    if (!memo || !stored) return;
    this.memos[`${host}/${pkg.name}`] = memo;
    let icons = this.#icons.get(host);
    if (!icons) this.#icons.set(host, (icons = []));
    icons.push(pkg.name);
    if (stored.archive.link !== true) this.read++;
    const files: OutputFile[] = [
      { path: memo.paths.archive, content: stored.archive },
      { path: memo.paths.icon, content: stored.icon },
      { path: memo.paths.binary, content: stored.binary.content },
    ];
    if (memo.paths.meta !== undefined && stored.meta !== undefined)
      files.push({ path: memo.paths.meta, content: stored.meta });
    for (const file of files) {
      this.#writer.write(file);
      if (this.#aliases)
        for (const path of aliasFilesOf(file.path)) this.#writer.write({ path, content: { sameAs: file.path } });
    }
  }

  /**
   * The surface's files once every package has passed: the repository list, each host's list and
   * icon archive (its icons read from the slot `slotDir`, the archive written into `workDir` to be
   * moved in) and the stubs; with every warning of the lists (HbbLists.finish: the packages' own, a
   * category that lost apps, a host the repository list leaves out).
   */
  finish(hosts: readonly HostInfo[], slotDir: string, workDir: string): { files: OutputFile[]; problems: Problem[] } {
    const lists = this.#lists.finish(hosts, this.#defaultHost);
    const files: OutputFile[] = [{ path: HBB_REPO_LIST, content: lists.repoList }];
    for (const { id, entries } of lists.hosts) {
      const icon = (name: string) => {
        const memo = this.memos[`${id}/${name}`];
        return memo && readFileSync(join(slotDir, memo.paths.icon));
      };
      files.push(...renderHbbHost(id, this.#defaultHost, { entries, icons: this.#icons.get(id) ?? [] }, icon, workDir));
    }
    return { files: [...files, ...hbbStubFiles()], problems: lists.problems };
  }
}
