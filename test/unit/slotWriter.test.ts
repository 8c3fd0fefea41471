// The full build's writer on its second thread writes what it writes on the main thread, byte for
// byte and digest for digest, in the order it was asked (a list's ranges are read once the list is
// on disk), and a write that fails there is thrown on the main thread with the system's code.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SlotWriter } from "../../src/write/slotWriter.js";
import { readTree, tempDir } from "../support/helpers.js";

/** Writes every kind of file a build writes, many of each, and returns the digests the writer handed on. */
function writeAll(
  root: string,
  source: string,
  threadAfter: number,
): Map<string, { size: number; sha256: string } | undefined> {
  const digests = new Map<string, { size: number; sha256: string } | undefined>();
  const writer = new SlotWriter(root, { index: { add: (path, digest) => digests.set(path, digest) }, threadAfter });
  for (let i = 0; i < 300; i++) {
    writer.write({ path: `api/packages/p${i}/index.json`, content: `{"name":"p${i}","é":"\u00e9"}` });
    writer.write({ path: `files/p${i}/icon.png`, content: { sameAs: `api/packages/p${i}/index.json` } });
  }
  const list = writer.append("api/list");
  list.add("[");
  for (let i = 0; i < 300; i++) list.add(`${i === 0 ? "" : ","}{"name":"p${i}"}`);
  // Bytes from a buffer the caller fills again at once, as a kept run of a live list is copied.
  const reused = Buffer.alloc(16);
  for (let i = 0; i < 3; i++) {
    reused.fill(`,${i}`);
    list.addBytes(reused.subarray(0, 2));
    reused.fill("x");
  }
  list.add("]");
  expect(list.close()).toBe(list.size);
  // p0, p1 (a run of neighbours, the comma between them included) and p3, each 13 bytes.
  writer.writeRanges("api/category/games", join(root, "api/list"), ["[", [1, 14], [14, 28], ",", [43, 56], "]"]);
  writer.write({ path: "files/big.zip", content: { file: source } });
  writer.write({
    path: "files/moved.zip",
    content: { file: `${source}.moved`, move: true, digest: { size: 1, sha256: "a" } },
  });
  writer.close();
  return digests;
}

function sourceFiles(dir: string): string {
  const source = join(dir, "source.zip");
  writeFileSync(source, Buffer.alloc(64 << 10, 7));
  writeFileSync(`${source}.moved`, "m");
  return source;
}

describe("the writer's thread", () => {
  it("writes the same files and digests as the main thread, in the order they were asked", () => {
    const dir = tempDir();
    const here = writeAll(join(dir, "here"), sourceFiles(join(dir)), Infinity);
    mkdirSync(join(dir, "there-sources"));
    const there = writeAll(join(dir, "there"), sourceFiles(join(dir, "there-sources")), 10);
    expect(readTree(join(dir, "there"))).toEqual(readTree(join(dir, "here")));
    expect(new Map([...there].sort())).toEqual(new Map([...here].sort()));
    // The digests are of the bytes on disk, the UTF-8 of é as the latin1 string gave it.
    const list = readFileSync(join(dir, "there", "api/list"));
    expect(list.length).toBe(there.get("api/list")!.size);
    expect(here.get("api/list")).toEqual({
      size: list.length,
      sha256: createHash("sha256").update(list).digest("hex"),
    });
    expect(readFileSync(join(dir, "there", "api/category/games"), "latin1")).toBe(
      '[{"name":"p0"},{"name":"p1"},{"name":"p3"}]',
    );
    // A link at an alias's path is the file it names: one inode.
    expect(statSync(join(dir, "there", "files/p7/icon.png")).ino).toBe(
      statSync(join(dir, "there", "api/packages/p7/index.json")).ino,
    );
  });

  it("throws a write that failed there on the main thread, with the system's code, and stops", () => {
    const dir = tempDir();
    const writer = new SlotWriter(join(dir, "slot"), { threadAfter: 0 });
    writeFileSync(join(dir, "slot", "api"), "a file where a folder is wanted");
    writer.write({ path: "api/packages/p/index.json", content: "{}" });
    expect(() => writer.drain()).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
    // Abandoned after a failure, it ends without throwing again.
    expect(() => writer.abandon()).not.toThrow();
  });
});
