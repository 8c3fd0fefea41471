// Removing a slot set aside (write/removeTree.ts): every file and folder under it goes, a link is
// removed and never followed, and a tree of many thousands of files is removed with a bounded
// number of removals in flight, not one pending request per entry.
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeTree } from "../../src/write/removeTree.js";
import { tempDir } from "../support/helpers.js";

describe("removeTree", () => {
  it("removes a tree of folders, files and links, and never follows a link out of it", async () => {
    const base = tempDir();
    const outside = join(base, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "keep.txt"), "kept");
    const root = join(base, "trash");
    mkdirSync(join(root, "v1", "primary", "package"), { recursive: true });
    mkdirSync(join(root, "browse", "primary", "coder", "a b"), { recursive: true });
    mkdirSync(join(root, "empty"));
    for (let i = 0; i < 2500; i++) writeFileSync(join(root, "v1", "primary", "package", `pkg_${i}`), `${i}`);
    writeFileSync(join(root, "browse", "primary", "coder", "a b", "index.html"), "<p>");
    symlinkSync(outside, join(root, "link-to-folder"));
    symlinkSync(join(outside, "keep.txt"), join(root, "browse", "link-to-file"));
    symlinkSync(join(base, "nowhere"), join(root, "dangling"));

    await removeTree(root);

    expect(existsSync(root)).toBe(false);
    expect(readdirSync(outside)).toEqual(["keep.txt"]);
    expect(readdirSync(base).sort()).toEqual(["outside"]);
  });

  it("resolves at once for a path that is not there, and removes a lone file", async () => {
    const base = tempDir();
    await removeTree(join(base, "no-such-folder"));
    writeFileSync(join(base, "file"), "x");
    await removeTree(join(base, "file"));
    expect(readdirSync(base)).toEqual([]);
  });

  it("keeps a bounded number of removals in flight on a folder of 20,000 files", async () => {
    const root = join(tempDir(), "trash");
    mkdirSync(root);
    for (let i = 0; i < 20_000; i++) writeFileSync(join(root, `f${i}`), "");
    // Each pending file system request is an active FSReq... resource while libuv works on it.
    const inFlight = () => process.getActiveResourcesInfo().filter((r) => r.startsWith("FSReq")).length;
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, inFlight())), 1);
    try {
      await removeTree(root);
    } finally {
      clearInterval(sampler);
    }
    expect(existsSync(root)).toBe(false);
    expect(most).toBeGreaterThan(0);
    // All at once (fs.promises.rm) has one pending request per entry: thousands here.
    expect(most).toBeLessThanOrEqual(64);
  });
});
