// `shopfront validate`: the load step and nothing after it; no file is written.
import { applyStrict, isError, type Problem } from "../catalogue/problems.js";
import { loadCatalogue } from "./loadCatalogue.js";

export interface ValidationResult {
  problems: Problem[];
  /** What a valid catalogue holds; absent when it has errors. */
  valid?: { hosts: number; packages: number };
}

/** With `strict` (`validate --strict`), every warning is an error. */
export async function validateCatalogue(
  catalogueDir: string,
  options: { strict?: boolean } = {},
): Promise<ValidationResult> {
  const loaded = await loadCatalogue(catalogueDir);
  const { catalogue } = loaded;
  const problems = applyStrict(loaded.problems, options.strict);
  if (!catalogue || problems.some(isError)) return { problems };
  let packages = 0;
  for (const list of catalogue.packages.values()) packages += list.length;
  return { problems, valid: { hosts: catalogue.hosts.length, packages } };
}
