// `shopfront validate`: the load step and nothing after it; no file is written.
import type { Problem } from "../catalogue/problems.js";
import { loadCatalogue } from "./loadCatalogue.js";

export interface ValidationResult {
  problems: Problem[];
  /** What a valid catalogue holds; absent when it has errors. */
  valid?: { hosts: number; packages: number };
}

export async function validateCatalogue(catalogueDir: string): Promise<ValidationResult> {
  const { problems, catalogue } = await loadCatalogue(catalogueDir);
  if (!catalogue) return { problems };
  let packages = 0;
  for (const list of catalogue.packages.values()) packages += list.length;
  return { problems, valid: { hosts: catalogue.hosts.length, packages } };
}
