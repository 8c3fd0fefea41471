// The files `build --target` adds to the output root, where a host reads its config from the deploy.
import type { OutputFile } from "../render/renderApi.js";
import { targetById } from "../targets/index.js";
import type { CatalogueNames } from "../render/catalogueNames.js";
import type { TargetId } from "../targets/target.js";
import { UsageError } from "../util/errors.js";

/** Every deploy file of the targets; two targets that would write one path are a usage error. */
export function targetFiles(ids: readonly TargetId[], names: CatalogueNames): OutputFile[] {
  const files: OutputFile[] = [];
  const owner = new Map<string, TargetId>();
  for (const id of new Set(ids)) {
    for (const file of targetById(id).deployFiles?.(names) ?? []) {
      const other = owner.get(file.path);
      if (other)
        throw new UsageError(
          `--target ${other} and --target ${id} both write ${file.path}; build one of them at a time`,
        );
      owner.set(file.path, id);
      files.push(file);
    }
  }
  return files;
}
