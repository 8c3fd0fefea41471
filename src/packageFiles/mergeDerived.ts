// The manifest and the package files side by side. A size or type the manifest states must be what
// the files say (the Homebrew Browser compares them with the bytes it downloads); what meta.xml says
// otherwise is only a warning, since a store may describe an app better than its author did. What the
// manifest leaves out comes from the files, as the Open Shop Channel's server does it.
import { finding, inFile, type Finding, type Problem } from "../catalogue/problems.js";
import type { Manifest } from "../catalogue/fields.js";
import type { DerivedFiles } from "./inspectPackageZip.js";

/** What the files decide, by manifest field. */
const FROM_FILES = ["zip_size", "extracted", "package_type"] as const;

/** The manifest field of each meta.xml field it is compared with (and `new --from` fills in). */
export const FROM_META = [
  ["display_name", "name"],
  ["coder", "coder"],
  ["version", "version"],
  ["short_description", "short_description"],
  ["long_description", "long_description"],
] as const;

/** The Open Shop Channel's fallbacks where neither the manifest nor meta.xml gives a value. */
const FALLBACKS: Partial<Manifest> = { version: "Unknown", short_description: "", long_description: "" };

type Fields = { -readonly [K in keyof Manifest]?: Manifest[K] };

const normalise = (s: string): string =>
  s
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim())
    .join("\n")
    .trim();

/**
 * Merges the values derived from a package's files into its manifest. `manifestFile` is the
 * manifest's path relative to the catalogue (`primary/snake.json`), which the problems name.
 */
export function mergeDerived(
  manifest: Partial<Manifest>,
  derived: DerivedFiles,
  manifestFile: string,
): { package: Partial<Manifest>; problems: Problem[] } {
  const merged: Fields = { ...manifest };
  const findings: Finding[] = [];
  for (const field of FROM_FILES) {
    const fromFiles = derived[field];
    const stated = manifest[field];
    if (stated === undefined) {
      if (field === "package_type") merged.package_type = fromFiles as string;
      else merged[field] = fromFiles as number;
    } else if (stated !== fromFiles) {
      findings.push(
        finding(
          "FILES_MISMATCH",
          `/${field}`,
          `is ${JSON.stringify(stated)}, the package files say ${JSON.stringify(fromFiles)}`,
        ),
      );
    }
  }
  const meta = derived.meta;
  for (const [field, metaField] of FROM_META) {
    const fromMeta = meta?.[metaField];
    const stated = manifest[field];
    if (stated === undefined) {
      const value = fromMeta !== undefined && fromMeta !== "" ? fromMeta : FALLBACKS[field];
      if (value === undefined) {
        findings.push(finding("MISSING_FIELD", `/${field}`, "is in neither the manifest nor meta.xml"));
      } else merged[field] = value;
    } else if (fromMeta !== undefined && normalise(fromMeta) !== normalise(stated)) {
      findings.push(
        finding(
          "META_MISMATCH",
          `/${field}`,
          `is ${JSON.stringify(stated)}, meta.xml's <${metaField}> says ${JSON.stringify(fromMeta)}`,
          "warning",
        ),
      );
    }
  }
  if (manifest.release_date === undefined) {
    if (meta?.release_date === undefined) {
      findings.push(finding("MISSING_FIELD", "/release_date", "is in neither the manifest nor meta.xml"));
    } else merged.release_date = meta.release_date;
  }
  return { package: merged, problems: inFile(manifestFile, findings) };
}
