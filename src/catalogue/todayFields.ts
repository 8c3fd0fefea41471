// The manifest fields of today's clients (v3, v4, meta.xml) and what a manifest without them means.
// One table names each peripheral three ways: the v4 API's name, the display name (v3, meta.xml)
// and the letter of `controllers` (v1/v2 and the Homebrew Browser).
import type { Manifest, TODAY_FIELDS } from "./fields.js";

export const PERIPHERALS = [
  { name: "wii_remote", display: "Wii Remote", letter: "w" },
  { name: "nunchuk", display: "Nunchuk", letter: "n" },
  { name: "classic_controller", display: "Classic Controller", letter: "c" },
  { name: "gamecube_controller", display: "GameCube Controller", letter: "g" },
  { name: "usb_keyboard", display: "USB Keyboard", letter: "k" },
  { name: "wii_zapper", display: "Wii Zapper", letter: "z" },
  { name: "sdhc", display: "SDHC", letter: "s" },
] as const;

export type Peripheral = (typeof PERIPHERALS)[number]["name"];
export type PeripheralLetter = (typeof PERIPHERALS)[number]["letter"];

export const PLATFORMS = ["wii", "vwii", "wii_mini"] as const;
export type Platform = (typeof PLATFORMS)[number];

export const FLAGS = ["deprecated", "writes_to_nand"] as const;
export type Flag = (typeof FLAGS)[number];

/** How many Wii Remotes a package may name: one per player, four at most. */
export const MAX_WII_REMOTES = 4;

const BY_NAME = new Map<string, (typeof PERIPHERALS)[number]>(PERIPHERALS.map((p) => [p.name, p]));

export function displayNameOf(peripheral: Peripheral): string {
  return BY_NAME.get(peripheral)!.display;
}

export function letterOf(peripheral: Peripheral): PeripheralLetter {
  return BY_NAME.get(peripheral)!.letter;
}

/** `controllers` as peripherals, in the table's order (`wwn` is two Wii Remotes and a Nunchuk). */
export function peripheralsOfControllers(controllers: string): Peripheral[] {
  const letters = [...controllers];
  return PERIPHERALS.flatMap((p) => letters.filter((l) => l === p.letter).map(() => p.name));
}

/** Peripherals as `controllers` letters, in the table's order. */
export function controllersOfPeripherals(peripherals: readonly string[]): string {
  return PERIPHERALS.flatMap((p) => peripherals.filter((n) => n === p.name).map(() => p.letter)).join("");
}

/** Whether `peripherals` and `controllers` name the same things, each as often, in any order. */
export function peripheralsAgree(peripherals: readonly string[], controllers: string): boolean {
  return controllersOfPeripherals(peripherals) === controllersOfPeripherals(peripheralsOfControllers(controllers));
}

/** What today's clients are told of a package: each field as the manifest gives it, or its default. */
export interface TodayValues {
  authors: readonly string[];
  contributors: readonly string[];
  supported_platforms: readonly Platform[];
  peripherals: readonly Peripheral[];
  flags: readonly Flag[];
}

export const DEFAULT_PLATFORMS: readonly Platform[] = ["wii", "vwii"];

/**
 * The fields with their defaults: authors the coder, the Wii and the Wii U's Wii mode, the
 * peripherals `controllers` names, no flags; `contributors` split on ", " (the way the Open Shop
 * Channel lists them), none for "".
 */
export function todayValues(
  manifest: Pick<Manifest, "coder" | "contributors" | "controllers" | keyof typeof TODAY_FIELDS>,
): TodayValues {
  return {
    authors: manifest.authors ?? [manifest.coder],
    contributors: manifest.contributors === "" ? [] : manifest.contributors.split(", "),
    supported_platforms: (manifest.supported_platforms as readonly Platform[] | undefined) ?? DEFAULT_PLATFORMS,
    peripherals:
      (manifest.peripherals as readonly Peripheral[] | undefined) ?? peripheralsOfControllers(manifest.controllers),
    flags: (manifest.flags as readonly Flag[] | undefined) ?? [],
  };
}
