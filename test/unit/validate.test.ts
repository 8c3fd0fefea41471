// Every catalogue rule, each on the basic fixture with one change: the problem code, file and
// pointer it yields, and that one run reports every problem.
import { mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCatalogue } from "../../src/load/loadCatalogue.js";
import { UsageError } from "../../src/util/errors.js";
import { copyFixture, loadPackages, manifest, tempDir, writeFiles } from "../support/helpers.js";

type Change = (dir: string) => void;

const hostsFile = (hosts: object[], defaultHost = "primary") => ({ default: defaultHost, hosts });
const host = (id: string) => ({
  id,
  name: `${id} repository`,
  host: `${id}.example.org`,
  description: `The ${id} host.`,
});

async function problemsAfter(change: Change) {
  const dir = copyFixture("basic");
  change(dir);
  const result = await loadPackages(dir);
  return { ...result, summary: result.problems.map((p) => [p.code, p.file, p.pointer]) };
}

const put =
  (files: Record<string, unknown>): Change =>
  (dir) =>
    writeFiles(dir, files);

describe("a valid catalogue", () => {
  it("has no problems and renders every package, sorted in code-point order", async () => {
    const { problems, hosts, packages } = await problemsAfter(() => {});
    expect(problems).toEqual([]);
    expect(hosts).toEqual(["primary", "themes"]);
    expect(packages!.get("primary")!.map((p) => p.name)).toEqual(["240pTest", "ZapShot", "snake", "snake-deluxe"]);
    expect(packages!.get("themes")!.map((p) => p.name)).toEqual(["dark-blue"]);
  });

  it("may have a host with no packages (its folder kept by a hidden placeholder)", async () => {
    const { problems, packages } = await problemsAfter((dir) => {
      writeFiles(dir, {
        "hosts.json": hostsFile([host("primary"), host("themes"), host("empty")]),
        "empty/.gitkeep": "",
      });
    });
    expect(problems).toEqual([]);
    expect(packages!.get("empty") ?? []).toEqual([]);
  });
});

describe("manifest rules", () => {
  it.each<[string, Change, [string, string, string][]]>([
    [
      "a string size",
      put({ "primary/snake.json": manifest("snake", { zip_size: "1024" }) }),
      [["WRONG_TYPE", "primary/snake.json", "/zip_size"]],
    ],
    [
      "a fractional size",
      put({ "primary/snake.json": manifest("snake", { extracted: 1.5 }) }),
      [["WRONG_TYPE", "primary/snake.json", "/extracted"]],
    ],
    [
      "a negative size",
      put({ "primary/snake.json": manifest("snake", { zip_size: -1 }) }),
      [["OUT_OF_RANGE", "primary/snake.json", "/zip_size"]],
    ],
    [
      "a size beyond 2^31-1",
      put({ "primary/snake.json": manifest("snake", { zip_size: 2 ** 31 }) }),
      [["OUT_OF_RANGE", "primary/snake.json", "/zip_size"]],
    ],
    [
      "a date in milliseconds",
      put({ "primary/snake.json": manifest("snake", { release_date: 1300000000000, updated: 1300000000001 }) }),
      [
        ["OUT_OF_RANGE", "primary/snake.json", "/release_date"],
        ["OUT_OF_RANGE", "primary/snake.json", "/updated"],
      ],
    ],
    [
      "a date as a string",
      put({ "primary/snake.json": manifest("snake", { release_date: "2011-03-13" }) }),
      [["WRONG_TYPE", "primary/snake.json", "/release_date"]],
    ],
    [
      "a missing field",
      put({ "primary/snake.json": manifest("snake", { version: undefined }) }),
      [["MISSING_FIELD", "primary/snake.json", "/version"]],
    ],
    [
      "a size left to the files, for a package without files",
      put({ "primary/snake.json": manifest("snake", { zip_size: undefined, package_type: undefined }) }),
      [
        ["MISSING_FIELD", "primary/snake.json", "/package_type"],
        ["MISSING_FIELD", "primary/snake.json", "/zip_size"],
      ],
    ],
    [
      "a computed field",
      put({ "primary/snake.json": manifest("snake", { downloads: 5 }) }),
      [["UNKNOWN_FIELD", "primary/snake.json", "/downloads"]],
    ],
    [
      "an unknown field",
      put({ "primary/snake.json": manifest("snake", { zipsize: 5 }) }),
      [["UNKNOWN_FIELD", "primary/snake.json", "/zipsize"]],
    ],
    [
      "an unknown category",
      put({ "primary/snake.json": manifest("snake", { category: "game" }) }),
      [["NOT_ALLOWED", "primary/snake.json", "/category"]],
    ],
    [
      "an unknown package type",
      put({ "primary/snake.json": manifest("snake", { package_type: "exe" }) }),
      [["NOT_ALLOWED", "primary/snake.json", "/package_type"]],
    ],
    [
      "an unknown controller letter",
      put({ "primary/snake.json": manifest("snake", { controllers: "wx" }) }),
      [["BAD_FORMAT", "primary/snake.json", "/controllers"]],
    ],
    [
      "an empty display name",
      put({ "primary/snake.json": manifest("snake", { display_name: "" }) }),
      [["BAD_LENGTH", "primary/snake.json", "/display_name"]],
    ],
    [
      "a line break in a one-line field",
      put({ "primary/snake.json": manifest("snake", { short_description: "a\nb" }) }),
      [["BAD_FORMAT", "primary/snake.json", "/short_description"]],
    ],
    [
      "a NUL character in the text",
      put({ "primary/snake.json": manifest("snake", { long_description: "a\u0000b" }) }),
      [["BAD_FORMAT", "primary/snake.json", "/long_description"]],
    ],
    [
      "a null value",
      put({ "primary/snake.json": manifest("snake", { coder: null }) }),
      [["WRONG_TYPE", "primary/snake.json", "/coder"]],
    ],
    [
      "an array instead of an object",
      put({ "primary/snake.json": [manifest("snake")] }),
      [["WRONG_TYPE", "primary/snake.json", ""]],
    ],
    [
      "internal_name not the file name",
      put({ "primary/snake.json": manifest("Snake") }),
      [["NAME_MISMATCH", "primary/snake.json", "/internal_name"]],
    ],
    [
      "malformed JSON",
      put({ "primary/snake.json": '{"internal_name": "snake",}' }),
      [["JSON_SYNTAX", "primary/snake.json", ""]],
    ],
    ["an empty file", put({ "primary/snake.json": "" }), [["EMPTY_FILE", "primary/snake.json", ""]]],
    [
      "invalid UTF-8",
      put({ "primary/snake.json": Buffer.from([0x7b, 0xff, 0x7d]) }),
      [["INVALID_UTF8", "primary/snake.json", ""]],
    ],
    [
      "a duplicate key",
      put({ "primary/snake.json": JSON.stringify(manifest("snake")).replace("{", '{"zip_size": 99999999,') }),
      [["DUPLICATE_KEY", "primary/snake.json", "/zip_size"]],
    ],
    [
      "a file over 1 MiB",
      put({ "primary/snake.json": " ".repeat(1024 * 1024 + 1) }),
      [["FILE_TOO_LARGE", "primary/snake.json", ""]],
    ],
  ])("reports %s", async (_, change, expected) => {
    const { summary, packages } = await problemsAfter(change);
    expect(summary).toEqual(expected);
    expect(packages).toBeUndefined();
  });

  it("warns, without failing, when updated is before release_date or the file has a byte order mark", async () => {
    const { problems, packages } = await problemsAfter(
      put({
        "primary/snake.json": manifest("snake", { release_date: 1300000000, updated: 1200000000 }),
        "primary/ZapShot.json": `\ufeff${JSON.stringify(manifest("ZapShot"))}`,
      }),
    );
    expect(problems.map((p) => [p.code, p.severity, p.pointer])).toEqual([
      ["BYTE_ORDER_MARK", "warning", ""],
      ["UPDATED_BEFORE_RELEASE", "warning", "/updated"],
    ]);
    expect(packages).toBeDefined();
  });

  it("explains what it expected and what it found", async () => {
    const { problems } = await problemsAfter(
      put({
        "primary/snake.json": manifest("snake", {
          zip_size: "12",
          downloads: 0,
          release_date: 1300000000000,
          relase_date: 1,
        }),
      }),
    );
    const messages = Object.fromEntries(problems.map((p) => [p.pointer, p.message]));
    expect(messages["/zip_size"]).toBe('must be integer (is string "12")');
    expect(messages["/downloads"]).toContain("computed by the build");
    expect(messages["/relase_date"]).toContain('did you mean "release_date"?');
    expect(messages["/release_date"]).toBe(
      "must be at most 2147483647 (is 1300000000000): Unix time is in seconds, and this looks like milliseconds: 1300000000",
    );
  });

  it("quotes a number as the file writes it, and says to write it as a string", async () => {
    const text = JSON.stringify(manifest("snake", { version: 1 }), null, 2).replace('"version": 1', '"version": 1.0');
    const { problems } = await problemsAfter(put({ "primary/snake.json": text }));
    expect(problems.map((p) => [p.code, p.pointer, p.message])).toEqual([
      ["WRONG_TYPE", "/version", 'must be string (is 1.0); write it as a string: "1.0"'],
    ]);
  });

  it("advice that works when followed: each quoting hint, applied, makes its problem go; none where quoting would fail again", async () => {
    const numbers = { version: 1.5, controllers: 1, coder: 7 };
    const text = JSON.stringify(manifest("snake", numbers), null, 2);
    const { problems } = await problemsAfter(put({ "primary/snake.json": text }));
    expect(problems.map((p) => [p.pointer, p.message])).toEqual([
      ["/coder", 'must be string (is 7); write it as a string: "7"'],
      [
        "/controllers",
        "must be string (is 1), a string that must only hold controller letters: w (Wii Remote, up to 4), n, c, g, k, z, s",
      ],
      ["/version", 'must be string (is 1.5); write it as a string: "1.5"'],
    ]);
    // Each quoting hint followed: its problem goes, and no other comes.
    let fixed = text;
    for (const p of problems) {
      const quoted = /write it as a string: (".*")$/.exec(p.message)?.[1];
      if (quoted === undefined) continue;
      const field = p.pointer.slice(1);
      fixed = fixed.replace(`"${field}": ${JSON.parse(quoted) as string}`, `"${field}": ${quoted}`);
    }
    const after = await problemsAfter(put({ "primary/snake.json": fixed }));
    expect(after.problems.map((p) => p.pointer)).toEqual(["/controllers"]);
    // The rule followed: letters.
    const letters = await problemsAfter(
      put({ "primary/snake.json": fixed.replace('"controllers": 1', '"controllers": "w"') }),
    );
    expect(letters.problems).toEqual([]);
  });

  it.each([
    ["game", "games"],
    ["Games", "games"],
    ["utility", "utilities"],
    ["emulator", "emulators"],
  ])("suggests the allowed value a category %j most likely meant", async (category, meant) => {
    const { problems } = await problemsAfter(put({ "primary/snake.json": manifest("snake", { category }) }));
    expect(problems.map((p) => p.message)).toEqual([
      `must be one of "demos", "emulators", "games", "media", "utilities", "themes" (is string ${JSON.stringify(category)}); did you mean "${meant}"?`,
    ]);
  });

  it("suggests no value when none is close", async () => {
    const { problems } = await problemsAfter(
      put({ "primary/snake.json": manifest("snake", { category: "apps", package_type: "exe" }) }),
    );
    expect(problems.map((p) => p.message).filter((m) => m.includes("did you mean"))).toEqual([]);
  });

  it.each([
    ["2011-03-13", "2011-03-13 is 1299974400 in Unix seconds"],
    ["2011-03-13T12:30:00Z", "2011-03-13T12:30:00Z is 1300019400 in Unix seconds"],
    ["2011-03-13T12:30:00+01:00", "2011-03-13T12:30:00+01:00 is 1300015800 in Unix seconds"],
    ["2011-03-13 12:30", "2011-03-13 12:30 is 1300019400 in Unix seconds, read as UTC"],
  ])("gives the Unix seconds of a date written as text, %j", async (date, hint) => {
    const { problems } = await problemsAfter(put({ "primary/snake.json": manifest("snake", { updated: date }) }));
    expect(problems.map((p) => [p.pointer, p.message])).toEqual([
      ["/updated", `must be integer (is string ${JSON.stringify(date)}); ${hint}`],
    ]);
  });

  it("gives no seconds for text that is no date", async () => {
    const { problems } = await problemsAfter(
      put({ "primary/snake.json": manifest("snake", { release_date: "March 2011" }) }),
    );
    expect(problems.map((p) => p.message)).toEqual(['must be integer (is string "March 2011")']);
  });
});

describe("name rules", () => {
  it.each<[string, string, string[]]>([
    ["a Windows device name", "con", ["RESERVED_NAME", "RESERVED_NAME"]],
    ["a device name with an extension", "NUL.txt", ["RESERVED_NAME", "RESERVED_NAME"]],
    ["a leading dot", ".snake", []],
    ["a leading hyphen", "-snake", ["INVALID_NAME", "INVALID_NAME"]],
    ["a trailing dot", "snake.", ["INVALID_NAME", "INVALID_NAME"]],
    ["a percent-encoded traversal", "%2e%2e", ["INVALID_NAME", "INVALID_NAME"]],
    ["a space", "my snake", ["INVALID_NAME", "INVALID_NAME"]],
    ["a non-ASCII letter", "snäke", ["INVALID_NAME", "INVALID_NAME"]],
    ["65 characters", "s".repeat(65), ["INVALID_NAME", "INVALID_NAME"]],
  ])("refuses %s as a package name", async (_, name, codes) => {
    const { problems } = await problemsAfter(put({ [`primary/${name}.json`]: manifest(name) }));
    // A hidden file (leading dot) is not a manifest at all, so it is not read.
    expect(problems.map((p) => p.code)).toEqual(codes);
    for (const p of problems) expect(p.file).toBe(`primary/${name}.json`);
  });

  it("refuses two names of one host that differ only in case", async () => {
    const { summary } = await problemsAfter(put({ "primary/Snake.json": manifest("Snake") }));
    expect(summary).toEqual([["CASE_COLLISION", "primary/snake.json", ""]]);
  });

  it("allows the same name on two hosts", async () => {
    const { problems } = await problemsAfter(put({ "themes/snake.json": manifest("snake") }));
    expect(problems).toEqual([]);
  });
});

describe("hosts.json and folder rules", () => {
  it.each<[string, Change, [string, string, string][]]>([
    ["a missing hosts.json", (dir) => unlinkSync(join(dir, "hosts.json")), [["MISSING_HOSTS_FILE", "hosts.json", ""]]],
    ["an undeclared folder", (dir) => mkdirSync(join(dir, "extras")), [["UNDECLARED_HOST_FOLDER", "extras/", ""]]],
    [
      "a declared host without a folder",
      (dir) => rmSync(join(dir, "themes"), { recursive: true }),
      [["MISSING_HOST_FOLDER", "hosts.json", "/hosts/1/id"]],
    ],
    [
      "a host folder that is a file",
      (dir) => (rmSync(join(dir, "themes"), { recursive: true }), writeFileSync(join(dir, "themes"), "")),
      [["NOT_A_FOLDER", "themes", ""]],
    ],
    [
      "a default that is not declared",
      put({ "hosts.json": hostsFile([host("primary"), host("themes")], "main") }),
      [["UNKNOWN_DEFAULT_HOST", "hosts.json", "/default"]],
    ],
    [
      "a host id 'hosts'",
      put({ "hosts.json": hostsFile([host("primary"), host("themes"), host("hosts")]), "hosts/.gitkeep": "" }),
      [["RESERVED_HOST_ID", "hosts.json", "/hosts/2/id"]],
    ],
    [
      "a host declared twice",
      put({ "hosts.json": hostsFile([host("primary"), host("themes"), host("Themes")]), "Themes/.gitkeep": "" }),
      [["DUPLICATE_HOST", "hosts.json", "/hosts/2/id"]],
    ],
    [
      "an invalid host id",
      put({ "hosts.json": hostsFile([host("primary"), host("themes"), { ...host("up"), id: "../up" }]) }),
      [["INVALID_NAME", "hosts.json", "/hosts/2/id"]],
    ],
    [
      "an invalid network host name",
      put({ "hosts.json": hostsFile([host("primary"), { ...host("themes"), host: "bad host!" }]) }),
      [["BAD_FORMAT", "hosts.json", "/hosts/1/host"]],
    ],
    [
      "no hosts at all",
      put({ "hosts.json": hostsFile([], "primary") }),
      [
        ["BAD_LENGTH", "hosts.json", "/hosts"],
        ["UNDECLARED_HOST_FOLDER", "primary/", ""],
        ["UNDECLARED_HOST_FOLDER", "themes/", ""],
        ["UNKNOWN_DEFAULT_HOST", "hosts.json", "/default"],
      ],
    ],
    [
      "a manifest outside any host folder",
      put({ "snake.json": manifest("snake") }),
      [["UNEXPECTED_ENTRY", "snake.json", ""]],
    ],
    [
      "a file that is not a manifest",
      put({ "primary/notes.txt": "hello" }),
      [["UNEXPECTED_ENTRY", "primary/notes.txt", ""]],
    ],
    [
      "a package folder with no manifest beside it",
      (dir) => mkdirSync(join(dir, "primary", "sub")),
      [["PACKAGE_FILES_WITHOUT_MANIFEST", "primary/sub/", ""]],
    ],
    [
      "a package zip with no manifest beside it",
      put({ "primary/orphan.zip": "PK" }),
      [["PACKAGE_FILES_WITHOUT_MANIFEST", "primary/orphan.zip", ""]],
    ],
    [
      "a folder whose name cannot be a package's",
      (dir) => mkdirSync(join(dir, "primary", "Not A Name")),
      [["UNEXPECTED_ENTRY", "primary/Not A Name/", ""]],
    ],
    [
      "a symbolic link to a file outside",
      (dir) => symlinkSync("/etc/hostname", join(dir, "primary", "linked.json")),
      [["SYMLINK", "primary/linked.json", ""]],
    ],
    [
      "a host folder that is a symbolic link",
      (dir) => (
        rmSync(join(dir, "themes"), { recursive: true }),
        symlinkSync(join(dir, "primary"), join(dir, "themes"))
      ),
      [["SYMLINK", "themes", ""]],
    ],
  ])("reports %s", async (_, change, expected) => {
    const { summary, packages } = await problemsAfter(change);
    expect(summary.sort()).toEqual(expected.sort());
    expect(packages).toBeUndefined();
  });

  it.each(["snake.json~", "#snake.json#", "snake.json.bak", "snake.json.orig", "snake.json.tmp", "4913", "x.swp"])(
    "ignores an editor's leftover %s in a host or stats folder, with a warning",
    async (name) => {
      const { problems, packages } = await problemsAfter(
        put({ [`primary/${name}`]: "{", [`stats/${name}`]: "", "stats/primary.json": { packages: {} } }),
      );
      expect(problems.map((p) => [p.code, p.severity, p.file, p.message])).toEqual(
        [`primary/${name}`, `stats/${name}`].map((file) => [
          "IGNORED_FILE",
          "warning",
          file,
          "is ignored: it looks like an editor's backup or temporary file",
        ]),
      );
      expect(packages!.get("primary")!.map((p) => p.name)).toEqual(["240pTest", "ZapShot", "snake", "snake-deluxe"]);
    },
  );

  it("still checks every manifest when hosts.json is broken", async () => {
    const { summary } = await problemsAfter(
      put({ "hosts.json": "{", "primary/snake.json": manifest("snake", { zip_size: "x" }) }),
    );
    expect(summary).toEqual([
      ["JSON_SYNTAX", "hosts.json", ""],
      ["WRONG_TYPE", "primary/snake.json", "/zip_size"],
    ]);
  });

  it("throws a usage error for a catalogue folder that does not exist", async () => {
    await expect(loadCatalogue(join(tempDir(), "nope"))).rejects.toThrow(UsageError);
  });
});

describe("stats rules", () => {
  const stats = (packages: unknown, more: object = {}) => put({ "stats/primary.json": { packages, ...more } });

  it.each<[string, Change, [string, string, string][]]>([
    [
      "negative downloads",
      stats({ snake: { downloads: -1 } }),
      [["OUT_OF_RANGE", "stats/primary.json", "/packages/snake/downloads"]],
    ],
    [
      "downloads beyond 2^31-1",
      stats({ snake: { downloads: 2 ** 31 } }),
      [["OUT_OF_RANGE", "stats/primary.json", "/packages/snake/downloads"]],
    ],
    [
      "fractional downloads",
      stats({ snake: { downloads: 1.5 } }),
      [["WRONG_TYPE", "stats/primary.json", "/packages/snake/downloads"]],
    ],
    [
      "a rating as a number",
      stats({ snake: { rating: 4 } }),
      [["WRONG_TYPE", "stats/primary.json", "/packages/snake/rating"]],
    ],
    [
      "a rating longer than the API carries",
      stats({ snake: { rating: "x".repeat(17) } }),
      [["BAD_LENGTH", "stats/primary.json", "/packages/snake/rating"]],
    ],
    [
      "an unknown field of an entry",
      stats({ "a/b~c": { votes: 3 } }),
      [["UNKNOWN_FIELD", "stats/primary.json", "/packages/a~1b~0c/votes"]],
    ],
    ["no packages object", put({ "stats/primary.json": {} }), [["MISSING_FIELD", "stats/primary.json", "/packages"]]],
    [
      "a counted log without its hash",
      stats({}, { counted: [{ sha256: "abc", bytes: 1, file: "a.log", countedAt: "yesterday", downloads: 1 }] }),
      [
        ["BAD_FORMAT", "stats/primary.json", "/counted/0/countedAt"],
        ["BAD_FORMAT", "stats/primary.json", "/counted/0/sha256"],
      ],
    ],
    [
      "a duplicate entry",
      put({ "stats/primary.json": '{"packages": {"snake": {"downloads": 1}, "snake": {"downloads": 2}}}' }),
      [["DUPLICATE_KEY", "stats/primary.json", "/packages/snake"]],
    ],
    ["malformed JSON", put({ "stats/primary.json": '{"packages": {}' }), [["JSON_SYNTAX", "stats/primary.json", ""]]],
    [
      "a stats file of an undeclared host",
      put({ "stats/other.json": { packages: {} } }),
      [["UNEXPECTED_ENTRY", "stats/other.json", ""]],
    ],
    [
      "a folder in the stats folder",
      put({ "stats/primary/x.json": { packages: {} } }),
      [["UNEXPECTED_ENTRY", "stats/primary/", ""]],
    ],
    ["a file named stats", put({ stats: "" }), [["UNEXPECTED_ENTRY", "stats", ""]]],
    [
      "a symbolic link as a stats file",
      (dir) => {
        mkdirSync(join(dir, "stats"));
        symlinkSync(join(dir, "hosts.json"), join(dir, "stats", "primary.json"));
      },
      [["SYMLINK", "stats/primary.json", ""]],
    ],
    [
      "a host named stats",
      (dir) => {
        writeFiles(dir, { "hosts.json": hostsFile([host("primary"), host("themes"), host("Stats")]) });
        mkdirSync(join(dir, "Stats"));
      },
      [["RESERVED_HOST_ID", "hosts.json", "/hosts/2/id"]],
    ],
  ])("%s", async (_, change, expected) => {
    const { summary, packages } = await problemsAfter(change);
    expect(summary).toEqual(expected);
    if (expected.some(([code]) => code !== "STATS_UNKNOWN_PACKAGE")) expect(packages).toBeUndefined();
  });

  it("warns about entries of packages the host does not have, and builds", async () => {
    const { problems, packages } = await problemsAfter(
      stats({ snake: { downloads: 5 }, retired: { downloads: 9, rating: "3" } }),
    );
    expect(problems).toEqual([
      {
        code: "STATS_UNKNOWN_PACKAGE",
        severity: "warning",
        file: "stats/primary.json",
        pointer: "/packages/retired",
        message: "names no package of host primary: its numbers are kept, but no package object carries them",
      },
    ]);
    expect(packages).toBeDefined();
  });

  it("merges each entry into its package, defaults for missing fields and missing entries", async () => {
    const { packages } = await problemsAfter(
      stats({ snake: { downloads: 5, rating: "4.5" }, ZapShot: { rating: "ünï" }, "240pTest": {} }),
    );
    const numbers = new Map(
      packages!.get("primary")!.map((p) => {
        const { downloads, rating } = JSON.parse(p.json) as { downloads: number; rating: string };
        return [p.name, { downloads, rating }];
      }),
    );
    expect(Object.fromEntries(numbers)).toEqual({
      "240pTest": { downloads: 0, rating: "" },
      ZapShot: { downloads: 0, rating: "ünï" },
      snake: { downloads: 5, rating: "4.5" },
      "snake-deluxe": { downloads: 0, rating: "" },
    });
    // Non-ASCII ratings are escaped like every other string of the API.
    expect(packages!.get("primary")!.find((p) => p.name === "ZapShot")!.json).toContain('"rating":"\\u00fcn\\u00ef"');
  });

  it("reports a bad stats file and every bad manifest in one run", async () => {
    const { summary } = await problemsAfter((dir) => {
      writeFiles(dir, {
        "stats/primary.json": { packages: { snake: { downloads: "12" } } },
        "primary/snake.json": manifest("snake", { zip_size: -1 }),
      });
    });
    expect(summary).toEqual([
      ["OUT_OF_RANGE", "primary/snake.json", "/zip_size"],
      ["WRONG_TYPE", "stats/primary.json", "/packages/snake/downloads"],
    ]);
  });
});

describe("one run", () => {
  it("reports every problem of every file, sorted by file and pointer", async () => {
    const { summary } = await problemsAfter(
      put({
        "primary/snake.json": "",
        "primary/ZapShot.json": manifest("ZapShot", { zip_size: "big", controllers: "?" }),
        "themes/dark-blue.json": manifest("dark-blue", { downloads: 1 }),
        "hosts.json": hostsFile([host("primary"), host("themes")], "nope"),
      }),
    );
    expect(summary).toEqual([
      ["UNKNOWN_DEFAULT_HOST", "hosts.json", "/default"],
      ["BAD_FORMAT", "primary/ZapShot.json", "/controllers"],
      ["WRONG_TYPE", "primary/ZapShot.json", "/zip_size"],
      ["EMPTY_FILE", "primary/snake.json", ""],
      ["UNKNOWN_FIELD", "themes/dark-blue.json", "/downloads"],
    ]);
  });
});
