// Which commit of the catalogue a built folder was built from, kept beside its build's state
// (`.<out>.shopfront/source.json`) with the file index entry it belongs to: a later build that does
// not record its own (an older shopfront, a catalogue outside git) leaves a record whose entry is no
// longer the folder's, which is then read as unknown, never as the wrong commit.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { FILE_INDEX } from "../routes/routeTable.js";
import { parseEntry } from "../trust/fileIndex.js";
import { writeAtomically } from "../util/writeAtomically.js";
import { outputLayout } from "../write/writeOutput.js";
import { catalogueCommit, findRepository } from "./gitRevision.js";

export const SOURCE_FILE = "source.json";

/** The commit a build was made from, and whether the catalogue folder differed from it (uncommitted changes). */
export interface BuildSource {
  commit: string;
  dirty: boolean;
}

interface SourceRecord extends BuildSource {
  /** The file index entry's revision and build time, which name the build this record is of. */
  indexRevision: number;
  built: string;
}

function liveEntry(outDir: string): { revision: number; built: string } | undefined {
  let text: string;
  try {
    text = readFileSync(join(outDir, FILE_INDEX.entry), "utf8");
  } catch {
    return undefined;
  }
  const entry = parseEntry(text);
  return typeof entry === "string" ? undefined : { revision: entry.revision, built: entry.built };
}

/** Whether a folder at or above `dir` holds `.git`: a build of a catalogue outside git spawns no git. */
function underGit(dir: string): boolean {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, ".git"))) return true;
    if (dirname(at) === at) return false;
  }
}

/** Writes which commit `catalogueDir` is at beside the build in `outDir`; nothing when it is in no git repository. */
export async function recordBuildSource(outDir: string, catalogueDir: string, known?: BuildSource): Promise<void> {
  const entry = liveEntry(outDir);
  if (!entry) return;
  let source = known;
  if (!source) {
    if (!underGit(catalogueDir)) return;
    const repository = await findRepository(catalogueDir);
    source = repository ? await catalogueCommit(repository) : undefined;
  }
  if (!source) return;
  const record: SourceRecord = { ...source, indexRevision: entry.revision, built: entry.built };
  writeAtomically(join(outputLayout(outDir).home, SOURCE_FILE), `${JSON.stringify(record)}\n`);
}

/** The commit the build in `dir` was made from, when the record beside it is of the build it holds now. */
export function readBuildSource(dir: string): BuildSource | undefined {
  let record: Partial<SourceRecord>;
  try {
    record = JSON.parse(readFileSync(join(outputLayout(dir).home, SOURCE_FILE), "utf8")) as Partial<SourceRecord>;
  } catch {
    return undefined;
  }
  const entry = liveEntry(dir);
  if (
    !entry ||
    typeof record.commit !== "string" ||
    !/^[0-9a-f]{40,64}$/.test(record.commit) ||
    record.indexRevision !== entry.revision ||
    record.built !== entry.built
  )
    return undefined;
  return { commit: record.commit, dirty: record.dirty === true };
}
