// `shopfront config <target>`: the files that make one host answer every route. A web server's
// config takes where it serves from and listens; every target's rules may name the catalogue's
// hosts, packages and coders, so the catalogue's manifests are loaded (and must be valid) first; its
// package files are not zipped or hashed (loadCatalogueNames).
import { loadCatalogueNames } from "../load/loadCatalogue.js";
import type { Problem } from "../catalogue/problems.js";
import { targetById } from "./index.js";
import { parseListen, parseRoot } from "./shared/serverOptions.js";
import type { TargetFile, TargetId } from "./target.js";

export interface ConfigOptions {
  target: TargetId;
  /** Servers: the built folder, as given (made absolute against the working folder). */
  root: string;
  /** Servers: `HOST:PORT` or `PORT`. */
  listen: string;
  /** The catalogue whose names the rules list. */
  catalogueDir: string;
}

/** The target's files, or the catalogue's problems when a platform's rules cannot be written. */
export async function renderConfig(options: ConfigOptions): Promise<{ problems: Problem[]; files?: TargetFile[] }> {
  const target = targetById(options.target);
  const server = { root: parseRoot(options.root), listen: parseListen(options.listen) };
  const { problems, names } = await loadCatalogueNames(options.catalogueDir);
  if (!names) return { problems };
  return { problems, files: target.config(server, names) };
}
