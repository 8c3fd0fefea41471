// The rebuild's plan: the last build's state, the survey's flags, the manifests read again and the
// live files as a map go in; the writes, the counts and the next state come out, a host's lists
// written by its pass into a stage folder.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Signature } from "../../src/read/signature.js";
import {
  hostStateOf,
  isUnchanged,
  lengthAt,
  type BuildState,
  type PackageFilters,
} from "../../src/engine/buildState.js";
import { planRebuild as planWith, type RebuildInputs, type RereadPackage } from "../../src/engine/planRebuild.js";
import type { LiveFiles } from "../../src/engine/liveFiles.js";
import { StagedFiles } from "../../src/write/stagedFiles.js";
import { contentText, filterKeys } from "../../src/render/renderApi.js";
import { fileFor } from "../../src/routes/routeTable.js";
import {
  featuredPick,
  isFeaturedCandidate,
  renderInformation,
  renderTodayFragments,
  todayFiles,
  todayPackageOf,
  todayUrlsOf,
  type TodayPackage,
} from "../../src/render/renderToday.js";
import type { HostInfo, Manifest } from "../../src/catalogue/fields.js";
import { manifest } from "../support/helpers.js";

const signature = (ino: number): Signature => ({ size: 10, mtimeMs: 1000, ctimeMs: 1000, ino });
const json = (name: string, version = "1") => `{"name":"${name}","version":"${version}"}`;
const packageFile = (host: string, name: string) => fileFor("package", { host, name });
const listFile = (host: string) => fileFor("packages", { host });

/** Each package's category and coder in the last build: a and c by Ann, b by Bo, t by Tia. */
const FILTERS: Record<string, PackageFilters> = {
  a: { category: "games", coder: "Ann" },
  b: { category: "games", coder: "Bo" },
  c: { category: "utilities", coder: "Ann" },
  t: { category: "themes", coder: "Tia" },
};

const HOSTS: HostInfo[] = [
  { id: "primary", name: "Primary", host: "primary.example", description: "Apps" },
  { id: "themes", name: "Themes", host: "themes.example", description: "Themes" },
];
const FEATURED_MS = 20_000 * 86_400_000;

/** A package's today values in these tests: from a manifest of its name and filters, at `version`. */
const todayOf = (name: string, version = "1", filters = FILTERS[name]!): TodayPackage =>
  todayPackageOf(manifest(name, { ...filters, version }) as Manifest, undefined);

/** Today's files of a catalogue of these packages (host -> names and versions), as a full build renders them. */
function todayApi(hosts: Record<string, [string, string, PackageFilters?][]>): Map<string, string> {
  const packages = new Map(
    Object.entries(hosts).map(([host, list]) => [host, list.map(([n, v, f]) => ({ today: todayOf(n, v, f) }))]),
  );
  const urls = todayUrlsOf(HOSTS, "primary", undefined);
  const files = new Map<string, string>();
  for (const host of HOSTS) {
    const list = packages.get(host.id) ?? [];
    const fragments = list.map((p) => renderTodayFragments(p.today, host.id, urls));
    const paths = todayFiles(host.id, "primary");
    const information = renderInformation(
      host,
      list.length,
      list.some((p) => p.today.category === "themes"),
    );
    files.set(paths.v4.information, information).set(paths.v3.information, information);
    files.set(paths.v4.contents, `[${fragments.map((f) => f.v4).join(",")}]`);
    files.set(paths.v3.contents, `[${fragments.map((f) => f.v3).join(",")}]`);
    const candidates = fragments.flatMap((f, i) => (f.featured ? [i] : []));
    const pick = featuredPick(candidates.length, FEATURED_MS);
    if (pick === undefined) continue;
    files
      .set(paths.v4.featured, fragments[candidates[pick]!]!.v4)
      .set(paths.v3.featured, fragments[candidates[pick]!]!.v3);
  }
  return files;
}

/** A host's filtered lists as a full build writes them: each list its packages' objects, in the host's order. */
function filteredLists(host: string, rendered: readonly (PackageFilters & { json: string })[]): Map<string, string> {
  const keys = filterKeys(host);
  const lists = new Map<string, string[]>();
  for (const p of rendered)
    for (const file of keys(p)) {
      let list = lists.get(file);
      if (!list) lists.set(file, (list = []));
      list.push(p.json);
    }
  return new Map([...lists].map(([file, list]) => [file, `[${list.join(",")}]`]));
}

/** The last build: host primary with a, b and c, host themes with t; its state and its live files. */
function lastBuild(): { state: BuildState; live: Map<string, string> } {
  const built = { primary: ["a", "b", "c"], themes: ["t"] };
  const live = new Map<string, string>([[fileFor("hosts"), '{"repos":["primary","themes"]}']]);
  const today = todayApi({
    primary: [
      ["a", "1"],
      ["b", "1"],
      ["c", "1"],
    ],
    themes: [["t", "1"]],
  });
  for (const [path, text] of today) live.set(path, text);
  const packages: BuildState["packages"] = {};
  let ino = 10;
  for (const [host, names] of Object.entries(built)) {
    const contents = (kind: "v4" | "v3") => JSON.parse(today.get(todayFiles(host, "primary")[kind].contents)!) as [];
    const rendered = names.map((name, i) => ({
      name,
      json: json(name),
      ...FILTERS[name]!,
      fragments: {
        v4: JSON.stringify(contents("v4")[i]),
        v3: JSON.stringify(contents("v3")[i]),
        featured: isFeaturedCandidate(todayOf(name)),
      },
    }));
    packages[host] = hostStateOf(
      rendered,
      rendered.map(() => signature(ino++)),
      [],
    );
    live.set(listFile(host), `[${rendered.map((p) => p.json).join(",")}]`);
    for (const p of rendered) live.set(packageFile(host, p.name), p.json);
    for (const [path, text] of filteredLists(host, rendered)) live.set(path, text);
  }
  const state: BuildState = {
    key: "k",
    targets: [],
    live: "a",
    snapshotMs: 50_000,
    featuredMs: FEATURED_MS,
    hostInfos: HOSTS,
    hostsDefault: "primary",
    hostsFile: signature(1),
    folders: null,
    hosts: Object.keys(built),
    statsFiles: Object.keys(built).map(() => null),
    packages,
    warnings: [],
    files: live.size,
  };
  return { state, live };
}

const categoryFile = (host: string, category: string) => fileFor("category", { host, category });
const coderFile = (host: string, coder: string) => fileFor("coder", { host, coder });
const pairFile = (host: string, category: string, coder: string) =>
  fileFor("category-coder", { host, category, coder });

/**
 * The live files from a map. A range is read in blocks of three bytes into one buffer, as the
 * rebuild reads a list of more than a block: each block must be used before the next is read.
 */
function liveFiles(files: ReadonlyMap<string, string>): LiveFiles {
  const shared = Buffer.alloc(3);
  return {
    text: (path) => files.get(path),
    bytes: (path) => Buffer.from(files.get(path)!, "latin1"),
    exists: (path) => files.has(path),
    ranges(path) {
      const read = (start: number, end: number) => Buffer.from(files.get(path)!.slice(start, end), "latin1");
      return {
        read,
        *blocks(start, end) {
          for (let at = start; at < end; at += shared.length) {
            const block = shared.subarray(0, Math.min(shared.length, end - at));
            block.write(files.get(path)!.slice(at, at + block.length), "latin1");
            yield block;
          }
        },
      };
    },
  };
}

const stages: string[] = [];
afterEach(() => {
  for (const dir of stages.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** planRebuild with a stage folder of its own, removed after the test. */
function planRebuild(...args: [BuildState, ReturnType<typeof survey>, RebuildInputs, LiveFiles]) {
  const dir = mkdtempSync(join(tmpdir(), "shopfront-plan-"));
  stages.push(dir);
  return planWith(...args, { stage: new StagedFiles(join(dir, "stage"), true) });
}

/** A survey that found every package of the last build in place but those of `moved`. */
function survey(state: BuildState, moved: Record<string, number[]> = {}) {
  const kept = new Map(
    state.hosts.map((host) => {
      const flags = new Uint8Array(state.packages[host]!.names.length).fill(1);
      for (const i of moved[host] ?? []) flags[i] = 0;
      return [host, flags] as const;
    }),
  );
  return { kept, folders: state.folders, resigned: new Map() };
}

/** The inputs of a rebuild that reads `packages` again, each as its host's pass comes to it. */
function inputs(state: BuildState, packages: RereadPackage[] = []): RebuildInputs {
  const byRef = new Map(packages.map((p) => [`${p.host}/${p.pkg.name}`, p]));
  return {
    snapshotMs: 100_000,
    hostsFile: state.hostsFile,
    statsFiles: state.statsFiles,
    stats: new Map(),
    toRead: packages.map((p) => ({
      ref: { host: p.host, name: p.pkg.name, file: `${p.host}/${p.pkg.name}.json` },
      index: p.index,
    })),
    read: (ref) => {
      const pkg = byRef.get(`${ref.host}/${ref.name}`);
      return Promise.resolve(pkg ? { pkg, problems: [] } : { problems: [] });
    },
    problems: [],
    targets: [],
    today: { urls: todayUrlsOf(HOSTS, "primary", undefined), featuredMs: FEATURED_MS },
  };
}

/** The today files a plan writes, and those of a full build of the catalogue after the edit. */
function todayWrites(plan: Awaited<ReturnType<typeof planRebuild>>, live: ReadonlyMap<string, string>) {
  const written = new Map<string, string | null>();
  for (const [path, content] of plan.writes)
    if (path.includes("api/v")) written.set(path, content === null ? null : contentText(content));
  const after = new Map(live);
  for (const [path, text] of written)
    if (text === null) after.delete(path);
    else after.set(path, text);
  return { written, after: new Map([...after].filter(([path]) => path.includes("api/v"))) };
}

const reread = (
  host: string,
  name: string,
  index: number | undefined,
  version = "1",
  filters = FILTERS[name]!,
): RereadPackage => ({
  host,
  index,
  pkg: { name, json: json(name, version), ...filters, today: todayOf(name, version, filters) },
  signature: signature(99),
});

describe("planRebuild", () => {
  it("plans nothing when nothing moved: mode unchanged, no writes, the state as it was", async () => {
    const { state, live } = lastBuild();
    const plan = await planRebuild(state, survey(state), inputs(state), liveFiles(live));
    expect(plan.writes.size).toBe(0);
    expect(plan.summary).toEqual({
      hosts: 2,
      packages: 4,
      files: live.size,
      mode: { kind: "unchanged" },
      changedPackages: 0,
      filesWritten: 0,
    });
    expect(plan.stateMoved).toBe(false);
    expect(plan.state.packages).toEqual(state.packages);
  });

  it("writes a changed package's file, its host's list and its filtered lists, and remembers its new signature", async () => {
    const { state, live } = lastBuild();
    const plan = await planRebuild(
      state,
      survey(state, { primary: [1] }),
      inputs(state, [reread("primary", "b", 1, "2")]),
      liveFiles(live),
    );
    expect(plan.changed).toEqual([{ host: "primary", name: "b" }]);
    const today = todayFiles("primary", "primary");
    expect([...plan.writes.keys()].sort()).toEqual(
      [
        packageFile("primary", "b"),
        listFile("primary"),
        categoryFile("primary", "games"),
        coderFile("primary", "Bo"),
        pairFile("primary", "games", "Bo"),
        today.v4.contents,
        today.v3.contents,
      ].sort(),
    );
    // Today's files after the plan are a full build's, a and c copied out of the live contents.
    const after = todayApi({
      primary: [
        ["a", "1"],
        ["b", "2"],
        ["c", "1"],
      ],
      themes: [["t", "1"]],
    });
    expect(todayWrites(plan, live).after).toEqual(after);
    expect(plan.writes.get(packageFile("primary", "b"))).toBe(json("b", "2"));
    expect(contentText(plan.writes.get(listFile("primary"))!)).toBe(`[${json("a")},${json("b", "2")},${json("c")}]`);
    expect(contentText(plan.writes.get(categoryFile("primary", "games"))!)).toBe(`[${json("a")},${json("b", "2")}]`);
    expect(plan.summary).toEqual({
      hosts: 2,
      packages: 4,
      files: live.size,
      mode: { kind: "incremental" },
      changedPackages: 1,
      filesWritten: 7,
    });
    const primary = plan.state.packages.primary!;
    expect(isUnchanged(signature(99), primary, 1, plan.state.snapshotMs + 60_000)).toBe(true);
    expect(lengthAt(primary, 1)).toBe(json("b", "2").length);
    expect(plan.state.packages.themes).toBe(state.packages.themes);
  });

  it("deletes a removed package's file and writes its host's list without it; its coder's last list goes", async () => {
    const { state, live } = lastBuild();
    const plan = await planRebuild(state, survey(state, { primary: [1] }), inputs(state), liveFiles(live));
    expect(plan.removed).toEqual([{ host: "primary", name: "b" }]);
    expect(plan.writes.get(packageFile("primary", "b"))).toBeNull();
    expect(contentText(plan.writes.get(listFile("primary"))!)).toBe(`[${json("a")},${json("c")}]`);
    expect(contentText(plan.writes.get(categoryFile("primary", "games"))!)).toBe(`[${json("a")}]`);
    expect(plan.writes.get(coderFile("primary", "Bo"))).toBeNull();
    expect(plan.writes.get(pairFile("primary", "games", "Bo"))).toBeNull();
    const { written, after } = todayWrites(plan, live);
    expect(after).toEqual(
      todayApi({
        primary: [
          ["a", "1"],
          ["c", "1"],
        ],
        themes: [["t", "1"]],
      }),
    );
    const gone = [...written.values()].filter((text) => text === null).length;
    expect(plan.summary).toEqual({
      hosts: 2,
      packages: 3,
      files: live.size - 3 - gone,
      mode: { kind: "incremental" },
      changedPackages: 1,
      filesWritten: 5 + written.size,
    });
    expect(plan.state.packages.primary!.names).toEqual(["a", "c"]);
  });

  it("writes a new package and puts it in its host's list in name order", async () => {
    const { state, live } = lastBuild();
    const plan = await planRebuild(
      state,
      survey(state),
      inputs(state, [reread("primary", "bb", undefined, "1", { category: "utilities", coder: "Ann" })]),
      liveFiles(live),
    );
    expect(plan.added).toEqual([{ host: "primary", name: "bb" }]);
    expect(contentText(plan.writes.get(listFile("primary"))!)).toBe(
      `[${json("a")},${json("b")},${json("bb")},${json("c")}]`,
    );
    expect(contentText(plan.writes.get(coderFile("primary", "Ann"))!)).toBe(
      `[${json("a")},${json("bb")},${json("c")}]`,
    );
    expect(contentText(plan.writes.get(pairFile("primary", "utilities", "Ann"))!)).toBe(`[${json("bb")},${json("c")}]`);
    const { written, after } = todayWrites(plan, live);
    const utilitiesAnn = { category: "utilities", coder: "Ann" };
    expect(after).toEqual(
      todayApi({
        primary: [
          ["a", "1"],
          ["b", "1"],
          ["bb", "1", utilitiesAnn],
          ["c", "1"],
        ],
        themes: [["t", "1"]],
      }),
    );
    expect(plan.summary).toEqual({
      hosts: 2,
      packages: 5,
      files: live.size + 1,
      mode: { kind: "incremental" },
      changedPackages: 1,
      filesWritten: 5 + written.size,
    });
    expect(plan.state.packages.primary!.names).toEqual(["a", "b", "bb", "c"]);
  });

  it("writes nothing for a package read again with the same output, but remembers its new signature", async () => {
    const { state, live } = lastBuild();
    const plan = await planRebuild(
      state,
      survey(state, { primary: [1] }),
      inputs(state, [reread("primary", "b", 1)]),
      liveFiles(live),
    );
    expect(plan.writes.size).toBe(0);
    expect(plan.summary).toMatchObject({ mode: { kind: "unchanged" }, changedPackages: 0, filesWritten: 0 });
    expect(plan.stateMoved).toBe(true);
    expect(isUnchanged(signature(99), plan.state.packages.primary!, 1, plan.state.snapshotMs + 60_000)).toBe(true);
  });
});
