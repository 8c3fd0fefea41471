// The placeholders shopfront writes for a maintainer to replace: the manifest template of `new` and
// `init`, and the hosts of `init`. One list, so that `validate` and `build` can name what was left.
import type { Manifest } from "./fields.js";
import { manifestText } from "./manifestFile.js";

/** The manifest template's text placeholders, in angle brackets so that a client showing one makes the omission plain. */
export const MANIFEST_PLACEHOLDERS = {
  coder: "<coder>",
  display_name: "<display name>",
  long_description: "<what the package does and how to use it; may span lines>",
  short_description: "<one line about the package>",
  version: "<version>",
} as const satisfies Partial<Record<keyof Manifest, string>>;

/** What to write in place of each manifest placeholder, as `validate` and `build` say it. */
export const MANIFEST_PLACEHOLDER_HINTS = {
  coder: "who made the package, as its meta.xml's <coder> says",
  display_name: "the package's name as clients show it",
  long_description: "what the package does and how to use it, or an empty string",
  short_description: "one line about the package",
  version: 'the version being published, such as "1.0"',
} as const satisfies Record<keyof typeof MANIFEST_PLACEHOLDERS, string>;

/** The hosts' text placeholders that `init` writes into hosts.json. */
export const HOST_PLACEHOLDERS = {
  primaryName: "<name of the repository>",
  themesName: "<name of the themes repository>",
  description: "<what this repository offers>",
} as const;

/** What to write in place of a host placeholder, by the host field that holds it. */
export const HOST_PLACEHOLDER_HINTS = {
  name: "the repository's name as clients list it",
  description: "a line on what the repository offers",
} as const;

/** The fields whose template values only stand in for the real ones. */
export const FILL_IN: readonly (keyof Manifest)[] = [
  "display_name",
  "coder",
  "short_description",
  "long_description",
  "version",
  "extracted",
  "zip_size",
];

/** Fields whose template values are real but may well be wrong for the package. */
export const CHECK: readonly (keyof Manifest)[] = ["category", "package_type", "controllers"];

/** A manifest for `name` released and updated at `nowSeconds`, its `$schema` pointing at `schema`. */
export function manifestTemplate(name: string, nowSeconds: number, schema: string): string {
  const manifest: Manifest & { $schema: string } = {
    $schema: schema,
    category: "utilities",
    coder: MANIFEST_PLACEHOLDERS.coder,
    contributors: "",
    controllers: "w",
    display_name: MANIFEST_PLACEHOLDERS.display_name,
    extracted: 0,
    internal_name: name,
    long_description: MANIFEST_PLACEHOLDERS.long_description,
    package_type: "dol",
    release_date: nowSeconds,
    short_description: MANIFEST_PLACEHOLDERS.short_description,
    updated: nowSeconds,
    version: MANIFEST_PLACEHOLDERS.version,
    zip_size: 0,
  };
  return manifestText(manifest);
}
