// The fields of the API's objects, in one table each. The TypeScript types are derived from these
// tables, and test/unit/schemas.test.ts checks that the tables agree with the JSON Schemas in schemas/,
// which stay the source of truth.

type JsonTypeName = "string" | "integer" | "array";
type TypeOf<T extends JsonTypeName> = T extends "integer" ? number : T extends "array" ? readonly string[] : string;
type Record_<T extends Record<string, JsonTypeName>> = { [K in keyof T]: TypeOf<T[K]> };

/** Fields a maintainer writes in catalogue/<host>/<name>.json. */
export const MANIFEST_FIELDS = {
  category: "string",
  coder: "string",
  contributors: "string",
  controllers: "string",
  display_name: "string",
  extracted: "integer",
  internal_name: "string",
  long_description: "string",
  package_type: "string",
  release_date: "integer",
  short_description: "string",
  updated: "integer",
  version: "string",
  zip_size: "integer",
} as const satisfies Record<string, JsonTypeName>;

/**
 * Manifest fields a package's files decide (src/packageFiles/mergeDerived.ts): a manifest may leave
 * them out when the package has files beside it; without files they are required.
 */
export const FILES_FIELDS = ["extracted", "package_type", "zip_size"] as const satisfies readonly (keyof typeof MANIFEST_FIELDS)[];

/** The fields every manifest has (the manifest schema's `required`). */
export const REQUIRED_MANIFEST_FIELDS = (Object.keys(MANIFEST_FIELDS) as (keyof typeof MANIFEST_FIELDS)[]).filter(
  (f) => !(FILES_FIELDS as readonly string[]).includes(f),
);

/**
 * Optional manifest fields that only today's clients read (the v3 and v4 APIs, meta.xml): a v1/v2
 * package object never carries them. What a manifest without them means is todayFields.ts.
 */
export const TODAY_FIELDS = {
  authors: "array",
  flags: "array",
  peripherals: "array",
  supported_platforms: "array",
} as const satisfies Record<string, JsonTypeName>;

/** Fields the build computes; a statistics source will fill them later without touching manifests. */
export const COMPUTED_FIELDS = {
  downloads: "integer",
  rating: "string",
} as const satisfies Record<string, JsonTypeName>;

export const PACKAGE_FIELDS = { ...MANIFEST_FIELDS, ...COMPUTED_FIELDS };

/** The fields of one host in catalogue/hosts.json. */
export const HOST_FIELDS = {
  id: "string",
  name: "string",
  host: "string",
  description: "string",
} as const satisfies Record<string, JsonTypeName>;

export type Manifest = Record_<typeof MANIFEST_FIELDS> & Partial<Record_<typeof TODAY_FIELDS>>;
export type PackageStats = Record_<typeof COMPUTED_FIELDS>;
export type Package = Record_<typeof PACKAGE_FIELDS>;
export type HostInfo = Record_<typeof HOST_FIELDS>;

export interface HostsFile {
  default: string;
  hosts: HostInfo[];
}

/** What every package reports until a statistics source exists (the spec: "this will change later"). */
export const NO_STATS: PackageStats = { downloads: 0, rating: "" };
