// The manifest fields of today's clients (authors, supported_platforms, peripherals, flags): their
// rules with problem codes and pointers, their defaults, the peripherals' one table, and that a
// v1/v2 package object never carries them.
import { describe, expect, it } from "vitest";
import {
  controllersOfPeripherals,
  displayNameOf,
  letterOf,
  PERIPHERALS,
  peripheralsAgree,
  peripheralsOfControllers,
  todayValues,
} from "../../src/catalogue/todayFields.js";
import { PACKAGE_FIELDS } from "../../src/catalogue/fields.js";
import { copyFixture, loadPackages, manifest, writeFiles } from "../support/helpers.js";

async function load(changes: Record<string, unknown>) {
  const dir = copyFixture("basic");
  writeFiles(dir, { "primary/snake.json": manifest("snake", changes) });
  const result = await loadPackages(dir);
  return {
    ...result,
    summary: result.problems.map((p) => [p.code, p.severity, p.pointer]),
    messages: result.problems.map((p) => p.message),
  };
}

describe("the fields of today's clients", () => {
  it("accept every allowed value", async () => {
    const { problems, packages } = await load({
      authors: ["Jane Doe", "Ada"],
      supported_platforms: ["wii", "vwii", "wii_mini"],
      peripherals: ["wii_remote", "wii_remote", "wii_remote", "wii_remote", "nunchuk", "classic_controller"],
      controllers: "wwwwnc",
      flags: ["deprecated", "writes_to_nand"],
    });
    expect(problems).toEqual([]);
    expect(packages).toBeDefined();
  });

  it.each<[string, Record<string, unknown>, [string, string, string][]]>([
    ["authors as a string", { authors: "Jane" }, [["WRONG_TYPE", "error", "/authors"]]],
    ["no authors", { authors: [] }, [["BAD_LENGTH", "error", "/authors"]]],
    ["an empty author", { authors: ["Jane", ""] }, [["BAD_LENGTH", "error", "/authors/1"]]],
    ["an author over two lines", { authors: ["Jane\nDoe"] }, [["BAD_FORMAT", "error", "/authors/0"]]],
    ["an author of 129 characters", { authors: ["x".repeat(129)] }, [["BAD_LENGTH", "error", "/authors/0"]]],
    ["33 authors", { authors: Array.from({ length: 33 }, (_, i) => `a${i}`) }, [["BAD_LENGTH", "error", "/authors"]]],
    ["an author twice", { authors: ["Jane", "Ada", "Jane"] }, [["REPEATED_VALUE", "error", "/authors/2"]]],
    ["an unknown platform", { supported_platforms: ["wiiu"] }, [["NOT_ALLOWED", "error", "/supported_platforms/0"]]],
    ["no platform", { supported_platforms: [] }, [["BAD_LENGTH", "error", "/supported_platforms"]]],
    [
      "a platform twice",
      { supported_platforms: ["wii", "wii"] },
      [["REPEATED_VALUE", "error", "/supported_platforms/1"]],
    ],
    ["an unknown flag", { flags: ["beta"] }, [["NOT_ALLOWED", "error", "/flags/0"]]],
    ["a flag twice", { flags: ["deprecated", "deprecated"] }, [["REPEATED_VALUE", "error", "/flags/1"]]],
    ["an unknown peripheral", { peripherals: ["wiimote"] }, [["NOT_ALLOWED", "error", "/peripherals/0"]]],
    [
      "a nunchuk twice",
      { peripherals: ["wii_remote", "nunchuk", "nunchuk"], controllers: "wn" },
      [["REPEATED_VALUE", "error", "/peripherals/2"]],
    ],
    [
      "five Wii Remotes",
      { peripherals: Array<string>(5).fill("wii_remote"), controllers: "wwww" },
      [["REPEATED_VALUE", "error", "/peripherals/4"]],
    ],
    [
      "peripherals that controllers contradicts",
      { peripherals: ["wii_remote", "wii_remote", "gamecube_controller"], controllers: "wn" },
      [["PERIPHERALS_MISMATCH", "warning", "/peripherals"]],
    ],
  ])("report %s", async (_, changes, expected) => {
    const { summary, packages } = await load(changes);
    expect(summary).toEqual(expected);
    expect(packages === undefined).toBe(expected.some(([, severity]) => severity === "error"));
  });

  it("say what is wrong and where the repeat is", async () => {
    expect((await load({ flags: ["deprecated", "deprecated"] })).messages).toEqual([
      'repeats string "deprecated" (already at /flags/0): each value at most once',
    ]);
    expect((await load({ peripherals: Array<string>(5).fill("wii_remote"), controllers: "wwww" })).messages).toEqual([
      'repeats string "wii_remote": it may be listed at most 4 times',
    ]);
    expect((await load({ peripherals: ["sdhc", "sdhc"], controllers: "s" })).messages).toEqual([
      'repeats string "sdhc": it may be listed once',
    ]);
    expect((await load({ peripherals: ["nunchuk"], controllers: "w" })).messages).toEqual([
      "says n in controllers' letters, /controllers says w: v3 and v4 say peripherals, v1/v2 and the Homebrew Browser controllers",
    ]);
  });

  it("agree with controllers in any order", async () => {
    const { problems } = await load({ peripherals: ["nunchuk", "wii_remote", "wii_remote"], controllers: "wnw" });
    expect(problems).toEqual([]);
  });

  it("never reach a v1/v2 package object", async () => {
    const { packages } = await load({
      authors: ["Jane"],
      supported_platforms: ["wii"],
      peripherals: ["wii_remote"],
      flags: ["deprecated"],
    });
    const snake = packages!.get("primary")!.find((p) => p.name === "snake")!;
    expect(Object.keys(JSON.parse(snake.json) as object)).toEqual(Object.keys(PACKAGE_FIELDS).sort());
  });
});

describe("the peripherals' table", () => {
  it("names each peripheral by its v4 name, display name and controllers letter", () => {
    expect(PERIPHERALS.map((p) => [p.name, p.display, p.letter])).toEqual([
      ["wii_remote", "Wii Remote", "w"],
      ["nunchuk", "Nunchuk", "n"],
      ["classic_controller", "Classic Controller", "c"],
      ["gamecube_controller", "GameCube Controller", "g"],
      ["usb_keyboard", "USB Keyboard", "k"],
      ["wii_zapper", "Wii Zapper", "z"],
      ["sdhc", "SDHC", "s"],
    ]);
    expect(displayNameOf("gamecube_controller")).toBe("GameCube Controller");
    expect(letterOf("usb_keyboard")).toBe("k");
  });

  it("turns controllers into peripherals in the table's order, and back", () => {
    expect(peripheralsOfControllers("swnwzkgc")).toEqual([
      "wii_remote",
      "wii_remote",
      "nunchuk",
      "classic_controller",
      "gamecube_controller",
      "usb_keyboard",
      "wii_zapper",
      "sdhc",
    ]);
    expect(peripheralsOfControllers("")).toEqual([]);
    expect(controllersOfPeripherals(["sdhc", "wii_remote", "nunchuk", "wii_remote"])).toBe("wwns");
    expect(peripheralsAgree(["nunchuk", "wii_remote"], "wn")).toBe(true);
    expect(peripheralsAgree(["wii_remote"], "ww")).toBe(false);
    expect(peripheralsAgree([], "")).toBe(true);
  });
});

describe("the defaults", () => {
  const base = { coder: "Jane Doe", contributors: "", controllers: "wwn" };

  it("fill what a manifest leaves out", () => {
    expect(todayValues(base)).toEqual({
      authors: ["Jane Doe"],
      contributors: [],
      supported_platforms: ["wii", "vwii"],
      peripherals: ["wii_remote", "wii_remote", "nunchuk"],
      flags: [],
    });
  });

  it("keep what a manifest gives, and split contributors on comma and space", () => {
    expect(
      todayValues({
        ...base,
        contributors: "Ada, Bob,Carol, Dan",
        authors: ["Eve", "Mallory"],
        supported_platforms: ["wii_mini"],
        peripherals: ["gamecube_controller"],
        flags: ["writes_to_nand"],
      }),
    ).toEqual({
      authors: ["Eve", "Mallory"],
      contributors: ["Ada", "Bob,Carol", "Dan"],
      supported_platforms: ["wii_mini"],
      peripherals: ["gamecube_controller"],
      flags: ["writes_to_nand"],
    });
  });

  it("keep an empty list of peripherals as given", () => {
    expect(todayValues({ ...base, peripherals: [] }).peripherals).toEqual([]);
  });
});
