// What an app writes into its own folder on an SD card for the person using it: settings, the lists
// and icons it downloaded. A card's copy of the app holds them; the app's release does not, and a
// store that published them would hand one person's settings and caches to everyone (and an
// outdated list or icon cache to the app, which reads them before its own defaults). Named per app
// folder, from the apps' own sources:
// - the Homebrew Browser (OSCHomebrewBrowser, source/main.c and common.c): settings.xml, the list it
//   last downloaded (listv036.txt; listv0NN.txt by older versions) and temp/, its icon cache;
// - Tantric's apps (WiiMC, Snes9x GX, FCE Ultra GX, Visual Boy Advance GX): settings.xml, saved in
//   the app's folder, and WiiMC's restore_points (where each file was left playing).

export interface UserDataRule {
  /** A file (or a folder, ending in `/`) directly in the app's folder, matched ignoring case. */
  pattern: RegExp;
  /** What it is, for the line that names it. */
  what: string;
}

const TANTRIC_SETTINGS: UserDataRule = { pattern: /^settings\.xml$/i, what: "its settings, saved on this card" };

/** The rules, by the app's folder name in lower case. */
const USER_DATA: Record<string, readonly UserDataRule[]> = {
  homebrew_browser: [
    { pattern: /^settings\.xml$/i, what: "its settings, saved on this card" },
    { pattern: /^listv0\d\d\.txt$/i, what: "the list it last downloaded" },
    { pattern: /^temp\/$/i, what: "the icons it downloaded" },
  ],
  wiimc: [TANTRIC_SETTINGS, { pattern: /^restore_points$/i, what: "where each file was left playing" }],
  snes9xgx: [TANTRIC_SETTINGS],
  fceugx: [TANTRIC_SETTINGS],
  vbagx: [TANTRIC_SETTINGS],
};

/**
 * The entries of an app's folder that its app wrote for its user (`entries`: names directly in the
 * folder, a folder's ending in `/`), each with what it is. `folder` is the app's folder name on the card.
 */
export function userDataOf(folder: string, entries: readonly string[]): { entry: string; what: string }[] {
  const rules = USER_DATA[folder.toLowerCase()] ?? [];
  return entries.flatMap((entry) => {
    const rule = rules.find((r) => r.pattern.test(entry));
    return rule ? [{ entry, what: rule.what }] : [];
  });
}
