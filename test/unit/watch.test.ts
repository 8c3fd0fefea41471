// `serve --watch` through its core: a real server on a port it binds itself (port 0) over a temporary catalogue, edited
// while it runs. Nothing waits a fixed time: every expectation polls until it holds or a deadline
// passes.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { watchCatalogue, type WatchEvent, type WatchHandle } from "../../src/serve/watchCatalogue.js";
import { copyFixture, FIXTURES, manifest, tempDir, writeFiles } from "../support/helpers.js";

const DEADLINE_MS = 15_000;

/** Polls `check` until it returns without throwing, or throws its last error after the deadline. */
async function eventually<T>(check: () => Promise<T> | T): Promise<T> {
  const until = Date.now() + DEADLINE_MS;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

async function get(base: string, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.text() };
}

const handles: WatchHandle[] = [];
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close();
});

async function start(catalogue: string) {
  const events: WatchEvent[] = [];
  const handle = await watchCatalogue({
    catalogueDir: catalogue,
    outDir: join(tempDir(), "dist"),
    host: "127.0.0.1",
    port: 0,
    onEvent: (event) => events.push(event),
  });
  handles.push(handle);
  return { handle, events, url: handle.url };
}

const displayName = async (url: string, name: string) => {
  const res = await get(url, `/v1/primary/package/${name}`);
  expect(res.status).toBe(200);
  return (JSON.parse(res.body) as { display_name: string }).display_name;
};

describe("watchCatalogue", () => {
  it("answers 503 with Retry-After while its first build runs, then serves the build", async () => {
    const catalogue = copyFixture("basic");
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const whileBuilding: { status: number; retryAfter: string | null; body: string }[] = [];
    const handle = await watchCatalogue({
      catalogueDir: catalogue,
      outDir: join(tempDir(), "dist"),
      host: "127.0.0.1",
      port: 0,
      onEvent: (event) => {
        if (event.kind !== "building" || !event.first) return;
        // Asked while the build is held back: it cannot have ended yet.
        void Promise.all(
          ["/v1/hosts", "/", "/browse/primary/"].map(async (path) => {
            const res = await fetch(`${event.url}${path}`);
            whileBuilding.push({
              status: res.status,
              retryAfter: res.headers.get("retry-after"),
              body: await res.text(),
            });
          }),
        ).finally(release);
      },
      build: async (options) => {
        await held;
        return buildCatalogue(options);
      },
    });
    handles.push(handle);
    expect(whileBuilding.map((r) => [r.status, r.retryAfter])).toEqual([
      [503, "1"],
      [503, "1"],
      [503, "1"],
    ]);
    expect(JSON.parse(whileBuilding[0]!.body)).toMatchObject({ error: "not_ready" });
    expect((await get(handle.url, "/v1/hosts")).status).toBe(200);
  });

  it("builds, serves, and serves each edit once it is built", async () => {
    const catalogue = copyFixture("basic");
    const { events, url } = await start(catalogue);
    expect(events).toEqual([{ kind: "building", url, first: true }, expect.objectContaining({ kind: "built" })]);
    expect(await displayName(url, "snake")).toBe("Snake");

    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { display_name: "Snake II" }) });
    await eventually(async () => expect(await displayName(url, "snake")).toBe("Snake II"));
    expect(events.at(-1)).toMatchObject({ kind: "built", built: { mode: { kind: "incremental" } } });
  });

  it("keeps serving the last good build while the catalogue is broken, and serves the fix", async () => {
    const catalogue = copyFixture("basic");
    const { events, url } = await start(catalogue);
    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { display_name: "Snake II", zip_size: "12" }) });
    const invalid = await eventually(() => {
      const event = events.find((e) => e.kind === "invalid");
      expect(event).toBeDefined();
      return event!;
    });
    expect(invalid).toMatchObject({
      problems: [{ code: "WRONG_TYPE", file: "primary/snake.json", pointer: "/zip_size" }],
      served: true,
    });
    expect(await displayName(url, "snake")).toBe("Snake");
    expect((await get(url, "/v1/hosts")).status).toBe(200);

    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { display_name: "Snake II" }) });
    await eventually(async () => expect(await displayName(url, "snake")).toBe("Snake II"));
    expect(events.at(-1)).toMatchObject({ kind: "built" });
  });

  it("rebuilds when a package's files change, inside a package folder too", async () => {
    const catalogue = copyFixture("package-files");
    const { events, url } = await start(catalogue);
    const extracted = async () => {
      const res = await get(url, "/v1/primary/package/snake");
      expect(res.status).toBe(200);
      return (JSON.parse(res.body) as { extracted: number }).extracted;
    };
    const before = await extracted();
    const readme = join(catalogue, "primary", "snake", "apps", "snake", "data", "readme.txt");
    writeFileSync(readme, `${readFileSync(readme, "utf8")}${"x".repeat(100)}`);
    await eventually(async () => expect(await extracted()).toBe(before + 100));

    copyFileSync(join(FIXTURES, "package-files", "hostile", "no-binary.zip"), join(catalogue, "primary", "pong.zip"));
    const invalid = await eventually(() => {
      const event = events.find((e) => e.kind === "invalid");
      expect(event).toBeDefined();
      return event!;
    });
    expect(invalid).toMatchObject({
      problems: expect.arrayContaining([expect.objectContaining({ file: "primary/pong.zip" })]),
    });
    expect(await extracted()).toBe(before + 100);
  });

  it("serves an added package and stops serving a removed one", async () => {
    const catalogue = copyFixture("basic");
    const { url } = await start(catalogue);
    expect((await get(url, "/v1/primary/package/tetris")).status).toBe(404);

    writeFiles(catalogue, { "primary/tetris.json": manifest("tetris", { display_name: "Tetris" }) });
    await eventually(async () => expect(await displayName(url, "tetris")).toBe("Tetris"));
    expect((await get(url, "/v1/primary/packages")).body).toContain('"tetris"');

    rmSync(join(catalogue, "primary", "snake.json"));
    await eventually(async () => expect((await get(url, "/v1/primary/package/snake")).status).toBe(404));
    expect((await get(url, "/v1/primary/packages")).body).not.toContain('"snake"');
  });

  it("starts on a broken catalogue with nothing built, answers 404, and serves the first good build", async () => {
    const catalogue = copyFixture("basic");
    writeFileSync(join(catalogue, "primary", "snake.json"), '{"internal_name": "snake",');
    const { events, url } = await start(catalogue);
    expect(events).toEqual([
      { kind: "building", url, first: true },
      expect.objectContaining({
        kind: "invalid",
        problems: [expect.objectContaining({ code: "JSON_SYNTAX" })],
        served: false,
      }),
    ]);
    expect((await get(url, "/v1/hosts")).status).toBe(404);

    writeFiles(catalogue, { "primary/snake.json": manifest("snake") });
    await eventually(async () => expect(await displayName(url, "snake")).toBe("Display snake"));
  });

  it("builds once for a burst of changes and never two builds at once", async () => {
    const catalogue = copyFixture("basic");
    const { events, url } = await start(catalogue);
    for (let i = 1; i <= 20; i++)
      writeFiles(catalogue, { "primary/snake.json": manifest("snake", { display_name: `Snake ${i}` }) });
    await eventually(async () => expect(await displayName(url, "snake")).toBe("Snake 20"));
    // A second build beside a running one would fail on the output's lock.
    expect(events.filter((e) => e.kind === "error")).toEqual([]);
    // The 20 writes are made in one turn of the event loop, so the watcher sees them all before its
    // quiet time can pass: one build for all of them, after the first.
    expect(events.filter((e) => e.kind === "building").length).toBe(2);
  });

  it("builds changes made during a build after it, never in a second build beside it", async () => {
    const catalogue = copyFixture("basic");
    const events: WatchEvent[] = [];
    let edits = 0;
    // Where in the events each edit made during a build was made.
    const editedAt: number[] = [];
    const handle = await watchCatalogue({
      catalogueDir: catalogue,
      outDir: join(tempDir(), "dist"),
      host: "127.0.0.1",
      port: 0,
      quietMs: 0,
      onEvent: (event) => {
        events.push(event);
        // Every rebuild finds the catalogue changed again while it runs, three times over.
        if (event.kind === "building" && events.length > 2 && edits < 3) {
          writeFiles(catalogue, { "primary/snake.json": manifest("snake", { display_name: `Snake ${++edits}` }) });
          editedAt.push(events.length - 1);
        }
      },
    });
    handles.push(handle);
    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { display_name: "Snake 0" }) });
    await eventually(async () => expect(await displayName(handle.url, "snake")).toBe("Snake 3"));
    // Each edit made while a build ran is built by a build that starts after it. Two edits may share
    // that build, when the watcher tells of the first only once the next build has begun; and the
    // watcher may tell of the last only after the build it was made in has ended (and served it).
    await eventually(() => {
      expect(editedAt).toHaveLength(3);
      for (const at of editedAt) expect(events.slice(at + 1).some((e) => e.kind === "building")).toBe(true);
      expect(events.at(-1)?.kind).toBe("built");
    });
    // Builds alternate with their ends: none starts while another runs.
    expect(events.map((e) => e.kind).join(" ")).toMatch(/^(building built )*building built$/);
  });

  it("watches from before the first build: a save made while it runs is built after it", async () => {
    const catalogue = copyFixture("basic");
    const events: WatchEvent[] = [];
    const handle = await watchCatalogue({
      catalogueDir: catalogue,
      outDir: join(tempDir(), "dist"),
      host: "127.0.0.1",
      port: 0,
      onEvent: (event) => {
        events.push(event);
        // The first build has read the catalogue and is about to finish: a save now is one it missed.
        if (event.kind === "built" && events.length === 2)
          writeFiles(catalogue, { "primary/snake.json": manifest("snake", { display_name: "Saved meanwhile" }) });
      },
    });
    handles.push(handle);
    await eventually(async () => expect(await displayName(handle.url, "snake")).toBe("Saved meanwhile"));
    expect(events.map((e) => e.kind).slice(0, 4)).toEqual(["building", "built", "building", "built"]);
  });

  it("rejects a catalogue folder that does not exist", async () => {
    await expect(start(join(tempDir(), "missing"))).rejects.toThrow(/there is no such folder/);
  });
});
