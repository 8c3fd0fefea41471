// A build that outgrows the memory Node.js gives it stops with a message that says what to try,
// never V8's fatal error and stack, and leaves the previous output as it was (util/memory.ts). The
// heap is made small (--max-old-space-size) so that a generated catalogue outgrows it quickly.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyFixture, GEN_CATALOGUE, readTree, shopfrontAsync, tempDir } from "../support/helpers.js";

describe("a build out of memory", () => {
  it("stops with what to try, exit 1, no V8 stack, and the previous output unchanged", async () => {
    const dir = tempDir();
    const catalogue = join(dir, "catalogue");
    const generated = spawnSync(process.execPath, [GEN_CATALOGUE, catalogue, "20000", "1"], { encoding: "utf8" });
    expect(generated.status, generated.stderr).toBe(0);
    const out = join(dir, "dist");
    const first = await shopfrontAsync(dir, ["build", "--quiet", "--catalogue", copyFixture("basic"), "--out", out]);
    expect(first.code, first.stderr).toBe(0);
    const before = readTree(out);

    const run = await shopfrontAsync(dir, ["build", "--catalogue", catalogue, "--out", out], {
      NODE_OPTIONS: "--max-old-space-size=96",
    });
    expect(run.code, run.stderr.slice(-2000)).toBe(1);
    expect(run.stderr).toMatch(/error: the build ran out of memory while [\w ]+: it holds \d+ MB of the 96 MB/);
    expect(run.stderr).toContain("`build --no-site`");
    expect(run.stderr).toContain("NODE_OPTIONS=--max-old-space-size=");
    expect(run.stderr).not.toMatch(/FATAL ERROR|heap out of memory|v8::internal/);
    expect(readTree(out)).toEqual(before);
  });
});
