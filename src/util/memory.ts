// A build that outgrows the memory Node.js gives it would die with V8's "heap out of memory" and a
// stack no user can act on. The loops that grow with the catalogue (reading manifests, rendering the
// site, writing files) call checkMemory as they go: near the heap's limit it collects garbage once
// to see what is really live, and if that is still near the limit it stops the build with a
// FailureError that says what to try. Nothing is published before the build ends, so the previous
// output is unchanged. Far from the limit, it keeps the heap near what is live: V8 alone lets a heap
// of a few hundred MB grow to three or four times its live size before it collects (a million
// packages reached 1.2 GB of RSS holding 300 MB), so past twice what the last collection left the
// build collects itself.
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { FailureError } from "./errors.js";

/** The share of the heap's limit past which the heap is looked at closely. */
const NEAR = 0.75;
/**
 * The share that is still in use after a full collection when the build stops: past it, what the
 * build still has to make (a list's text, a site's pages) would not fit.
 */
const FULL = 0.7;
/** How many calls pass between two looks at the heap (each is a few microseconds). */
const EVERY = 512;

let calls = 0;
/** What the old generation held after the build's last full collection. */
let liveAfterCollection = 0;
/** The old generation's growth the build leaves to V8 however little is live. */
const BUDGET = 256 * 1024 * 1024;
let collect: (() => void) | undefined;

/** A full garbage collection, made available once (Node.js exposes it only behind a flag). */
function fullCollection(): void {
  if (!collect) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  collect();
}

/**
 * V8's young generation, which heap_size_limit counts beside the old one (three semi-spaces of
 * Node.js's default 16 MB): the old generation is what runs out.
 */
const YOUNG_GENERATION = 48 * 1024 * 1024;

/** The old generation's limit (--max-old-space-size). */
function oldGenerationLimit(): number {
  return getHeapStatistics().heap_size_limit - YOUNG_GENERATION;
}

/** What the heap holds outside the young generation. */
function oldGenerationUsed(): number {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) if (space.space_name !== "new_space") used += space.space_used_size;
  return used;
}

export class OutOfMemoryError extends FailureError {}

/**
 * V8 alone lets a large heap grow to three or four times what is live before it collects: past
 * twice what the last collection left (and at least a budget's worth), the build collects.
 */
function collectPastBudget(used: number): void {
  if (used <= Math.max(BUDGET, 2 * liveAfterCollection)) return;
  fullCollection();
  liveAfterCollection = oldGenerationUsed();
}

/**
 * The budget alone, for a loop that must not stop the build near the heap's limit (signing the
 * index, whose peak a rebuild passes at more than the share checkMemory stops at).
 */
export function keepHeapNearLive(): void {
  if (++calls % EVERY !== 0) return;
  collectPastBudget(oldGenerationUsed());
}

const MB = 1024 * 1024;

/**
 * Stops the build with a clear message when what it holds nears the heap's limit. `doing` says what
 * the build was doing ("rendering the browse site"), for the message.
 */
export function checkMemory(doing: string): void {
  if (++calls % EVERY !== 0) return;
  const limit = oldGenerationLimit();
  const before = oldGenerationUsed();
  if (before < limit * NEAR) {
    collectPastBudget(before);
    return;
  }
  fullCollection();
  const used = oldGenerationUsed();
  liveAfterCollection = used;
  if (used < limit * FULL) return;
  throw new OutOfMemoryError(
    `the build ran out of memory while ${doing}: it holds ${Math.round(used / MB)} MB of the ${Math.round(limit / MB)} MB ` +
      "Node.js gives it. Give it more, e.g. " +
      `NODE_OPTIONS=--max-old-space-size=${2 * Math.ceil(limit / MB / 1024) * 1024} npx shopfront build ` +
      "(a build holds an index of a few hundred bytes a package: 1 GiB is enough for a million); the previous output is unchanged",
  );
}
