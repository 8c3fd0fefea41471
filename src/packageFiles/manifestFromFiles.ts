// The manifest `new --from` and `import apps` write for a package with files: what meta.xml says where
// it says it, the template's placeholders elsewhere; zip_size, extracted and package_type left out,
// for the build derives them.
import { FILES_FIELDS, type Manifest } from "../catalogue/fields.js";
import { GUESSED_DATE_KEY } from "../catalogue/guessedDate.js";
import { manifestText } from "../catalogue/manifestFile.js";
import { manifestTemplate } from "../catalogue/manifestTemplate.js";
import { FROM_META } from "./mergeDerived.js";
import type { MetaXml } from "./parseMetaXml.js";

/**
 * The manifest of package `name`, released and updated at meta.xml's date, or at `releaseDate` when
 * meta.xml has none (a date the caller chose and warned of, never silently the current time); with
 * no `schema`, without `$schema`. A date the caller `guessed` is marked so (catalogue/guessedDate.ts).
 */
export function manifestFromFiles(
  name: string,
  schema: string | undefined,
  meta: MetaXml | undefined,
  releaseDate: number,
  guessed = false,
): { text: string; fillIn: (keyof Manifest)[] } {
  const released = meta?.release_date ?? releaseDate;
  const template = JSON.parse(manifestTemplate(name, released, schema ?? "")) as Record<string, unknown>;
  if (schema === undefined) delete template.$schema;
  if (guessed && meta?.release_date === undefined) template[GUESSED_DATE_KEY] = released;
  const fillIn: (keyof Manifest)[] = [];
  for (const [field, metaField] of FROM_META) {
    const value = meta?.[metaField];
    if (value !== undefined && value !== "") template[field] = value;
    else fillIn.push(field);
  }
  for (const field of FILES_FIELDS) delete template[field];
  return { text: manifestText(template as unknown as Manifest), fillIn };
}
