// I/O: the files of a built tree with their sizes and MD5s, for the deploy planner.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { UsageError } from "../util/errors.js";
import { fileFor } from "../routes/routeTable.js";
import type { LocalFile } from "./planDeploy.js";
import { compareCodePoints } from "../util/codePoints.js";

export interface LocalBuild {
  /** The build slot the output link pointed to when the deploy started. */
  root: string;
  /** Sorted by path. */
  files: LocalFile[];
}

export function md5Hex(bytes: Uint8Array): string {
  return createHash("md5").update(bytes).digest("hex");
}

export function readBuild(dir: string): LocalBuild {
  let root: string;
  try {
    // Resolved once: a build that swaps the `dist` link during the deploy must not mix two trees.
    root = realpathSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT")
      throw new UsageError(`${dir} does not exist; run shopfront build first`);
    throw e;
  }
  if (!existsSync(join(root, fileFor("hosts")))) {
    throw new UsageError(`${dir} is not a built API (it has no ${fileFor("hosts")}); run shopfront build first`);
  }
  const files: LocalFile[] = [];
  // A package file at its aliases' paths is one file, hard-linked (SameAs): read once.
  const known = new Map<string, LocalFile>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) continue;
    const path = relative(root, join(entry.parentPath, entry.name)).split(sep).join("/");
    // A symbolic link could point anywhere on this machine; shopfront build never writes one.
    if (!entry.isFile()) throw new UsageError(`${dir}: ${path} is not a regular file; a built API holds only files`);
    const stats = statSync(join(root, path));
    const inode = `${stats.dev}:${stats.ino}`;
    let read = stats.nlink > 1 ? known.get(inode) : undefined;
    if (read === undefined) {
      const bytes = readFileSync(join(root, path));
      read = { path, size: bytes.length, md5: md5Hex(bytes) };
      if (stats.nlink > 1) known.set(inode, read);
    }
    files.push({ ...read, path });
  }
  return { root, files: files.sort((a, b) => compareCodePoints(a.path, b.path)) };
}
