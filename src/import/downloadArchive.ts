// A package's archive fetched from a store into the catalogue as `<host>/<name>.zip`: streamed into a
// hidden temporary file in the same folder (so the rename that publishes it is atomic, and a file
// that never completes is never seen under the package's name), hashed and counted as it comes, and
// kept only when its size and MD5 are what the API states. Whatever fails, nothing is left behind.
import { createHash } from "node:crypto";
import { constants, createReadStream, createWriteStream } from "node:fs";
import { copyFile, lstat, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { VERSION } from "../util/version.js";

/** Where an archive comes from and what the API says it is. */
export interface ArchiveSource {
  url: string;
  /** Its bytes, when the API states them. */
  size?: number;
  /** Its MD5 as lower-case hex, when the API states it. */
  md5?: string;
}

/** An archive in a folder on this machine (a mirror's `hbb/<name>/<name>.zip`), and the size its list states. */
export interface LocalArchive {
  file: string;
  size?: number;
}

/** The largest archive an import takes when the API states no size: the catalogue's own limit on unpacked bytes. */
export const MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024;

/**
 * Why a URL from a remote is not fetched, or undefined when it may be: only http(s), and no user name
 * or password (a remote must not make the import send credentials). Any origin is allowed: a store
 * may keep its files on another host than its API (the Open Shop Channel's API is at
 * api.oscwii.org, its archives at hbb1.oscwii.org).
 */
export function refuseUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Not a URL: the problem names it.
    return `its archive URL ${JSON.stringify(text)} is not a URL`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `its archive URL ${JSON.stringify(text)} is not http:// or https://`;
  if (url.username !== "" || url.password !== "")
    return `its archive URL ${JSON.stringify(text)} holds a user name or password (refused)`;
  return undefined;
}

/** A file's size and MD5, or undefined when there is no such file. */
export async function fileDigest(path: string): Promise<{ size: number; md5: string } | undefined> {
  try {
    if (!(await lstat(path)).isFile()) return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const hash = createHash("md5");
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, md5: hash.digest("hex") };
}

/** Whether a file's digest is what the source states (a size or hash it does not state is not compared). */
export function matchesSource(digest: { size: number; md5: string }, source: { size?: number; md5?: string }): boolean {
  return (
    (source.size === undefined || digest.size === source.size) &&
    (source.md5 === undefined || digest.md5 === source.md5.toLowerCase())
  );
}

export interface DownloadOptions {
  /** How long the answer, and then each next piece of the body, may take to come, in seconds. */
  timeoutSeconds: number;
  /** Bytes received so far, for a progress bar. */
  onBytes?: (bytes: number) => void;
}

/** A reason for a message, without Node's wrapping ("fetch failed" holds the cause). */
function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    if (error.message === "fetch failed" && cause instanceof Error) return cause.message;
    return error.message;
  }
  return String(error);
}

class Refused extends Error {}

/** A hidden temporary name beside `target`, in the same folder, so that renaming it over `target` is atomic. */
export function temporaryBeside(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${Math.random().toString(36).slice(2)}.part`);
}

/**
 * Copies a mirror's archive into `target` when it has the size its list states; returns undefined
 * when it is in place, otherwise why not, and nothing is left behind.
 */
export async function copyArchive(source: LocalArchive, target: string): Promise<string | undefined> {
  const temporary = temporaryBeside(target);
  try {
    await copyFile(source.file, temporary, constants.COPYFILE_EXCL);
    const { size } = await stat(temporary);
    if (source.size !== undefined && size !== source.size)
      return `${source.file} has ${size} bytes, not the ${source.size} the list states`;
    await rename(temporary, target);
    return undefined;
  } catch (error) {
    return `${source.file} cannot be copied (${reasonOf(error)})`;
  } finally {
    await rm(temporary, { force: true });
  }
}

/**
 * Fetches `source.url` into `target` (a path in the catalogue). Returns undefined when the archive
 * is in place, whole; otherwise why not, and `target` is as it was and no temporary file is left.
 */
export async function downloadArchive(
  source: ArchiveSource,
  target: string,
  options: DownloadOptions,
): Promise<string | undefined> {
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${Math.random().toString(36).slice(2)}.part`,
  );
  const limit = source.size ?? MAX_ARCHIVE_BYTES;
  const controller = new AbortController();
  const timeout = options.timeoutSeconds * 1000;
  let timedOut = false;
  let timer = setTimeout(() => ((timedOut = true), controller.abort()), timeout);
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => ((timedOut = true), controller.abort()), timeout);
  };
  try {
    const response = await fetch(source.url, {
      headers: { "User-Agent": `shopfront/${VERSION}` },
      signal: controller.signal,
      redirect: "follow",
    });
    if (response.status !== 200) {
      const status = [response.status, response.statusText].filter((part) => part !== "").join(" ");
      await response.body?.cancel();
      return `its archive ${source.url} answered ${status}, not 200`;
    }
    if (!response.body) return `its archive ${source.url} answered with no body`;
    const hash = createHash("md5");
    let size = 0;
    const tooLong =
      source.size !== undefined
        ? `its archive ${source.url} is longer than the ${source.size} bytes the API states`
        : `its archive ${source.url} is longer than ${MAX_ARCHIVE_BYTES} bytes (the most an import takes when the API states no size)`;
    await pipeline(
      Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          rearm();
          size += chunk.length;
          // Stop at the first byte too many: a remote must not fill the disk.
          if (size > limit) throw new Refused(tooLong);
          hash.update(chunk);
          options.onBytes?.(chunk.length);
          yield chunk;
        }
      },
      createWriteStream(temporary, { flags: "wx" }),
    );
    const md5 = hash.digest("hex");
    if (source.size !== undefined && size !== source.size)
      return `its archive ${source.url} has ${size} bytes, not the ${source.size} the API states (cut short?)`;
    if (source.md5 !== undefined && md5 !== source.md5.toLowerCase())
      return `its archive ${source.url} has MD5 ${md5}, not the ${source.md5} the API states`;
    await rename(temporary, target);
    return undefined;
  } catch (error) {
    if (error instanceof Refused) return error.message;
    if (timedOut) return `its archive ${source.url} did not come within ${options.timeoutSeconds} s (--timeout)`;
    return `its archive ${source.url} cannot be fetched (${reasonOf(error)})`;
  } finally {
    clearTimeout(timer);
    await rm(temporary, { force: true });
  }
}
