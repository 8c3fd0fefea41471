// The files a rebuild writes aside before it changes the live slot: a host's lists, written by the
// same pass as a full build's (engine/streamHost.ts) into a folder of the work folder, then moved
// into the live slot in the publish order with every other change (writeOutput.ts's applyInPlace).
// With the signed file index, each file's size and SHA-256 are taken as it is written.
import { join } from "node:path";
import type { FileContent } from "../render/renderApi.js";
import { SlotWriter, type WrittenFiles } from "./slotWriter.js";

export class StagedFiles implements WrittenFiles {
  readonly writer: SlotWriter;
  readonly #digests = new Map<string, { size: number; sha256: string }>();

  /** Writes into `root`, a folder made anew; hashes each file when `hash`. */
  constructor(root: string, hash: boolean) {
    this.writer = new SlotWriter(root, hash ? { index: this } : {});
  }

  add(path: string, digest?: { size: number; sha256: string }): void {
    if (digest) this.#digests.set(path, digest);
  }

  /** The file written at `path`, as a write of the plan: moved into the live slot, its digest known. */
  content(path: string): FileContent {
    this.writer.drain();
    const digest = this.#digests.get(path);
    return { file: join(this.writer.root, path), move: true, ...(digest ? { digest } : {}) };
  }
}
