// verify --sample's pick (util/reservoir.ts): n of the files, each with the same chance, in the
// index's order, holding only the sample as the shards pass.
import { describe, expect, it } from "vitest";
import { reservoir } from "../../src/util/reservoir.js";

/** A seeded generator (xorshift32), so that the counts below are the same every run. */
function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

describe("a sample picked as the items pass", () => {
  it("holds n distinct items in the order they came, and counts every item handed", () => {
    const sample = reservoir<number>(5, seeded(7));
    for (let i = 0; i < 1000; i++) sample.add(i);
    const picked = sample.picked();
    expect(picked).toHaveLength(5);
    expect(new Set(picked).size).toBe(5);
    expect(picked).toEqual([...picked].sort((a, b) => a - b));
    expect(sample.seen).toBe(1000);
  });

  it("gives every item the same chance: 10 items, 3 picked, 30,000 times, each within 5% of 9,000", () => {
    const random = seeded(42);
    const counts = new Array<number>(10).fill(0);
    for (let trial = 0; trial < 30_000; trial++) {
      const sample = reservoir<number>(3, random);
      for (let i = 0; i < 10; i++) sample.add(i);
      for (const i of sample.picked()) counts[i]!++;
    }
    for (const count of counts) expect(Math.abs(count - 9000)).toBeLessThan(450);
  });

  it("keeps everything without n, or when n is more than there are", () => {
    const all = reservoir<string>(undefined, seeded(1));
    const more = reservoir<string>(10, seeded(1));
    for (const s of ["a", "b", "c"]) {
      all.add(s);
      more.add(s);
    }
    expect(all.picked()).toEqual(["a", "b", "c"]);
    expect(more.picked()).toEqual(["a", "b", "c"]);
  });
});
