// A host's list file rewritten from the old one: unchanged packages are copied as byte ranges of
// the live file, read only as the new file is written, so a list of any size is rebuilt without
// holding it, turning it into one string or parsing it.
import type { ByteRange } from "../render/renderApi.js";
import { lengthAt, type HostState, type ListKind } from "./buildState.js";

/** A live file read by ranges: the ranges are read when written (it stays open until then). */
export interface LiveRanges {
  /** Bytes [start, end) now. */
  read(start: number, end: number): Buffer;
  /** Bytes [start, end), read when written. */
  range(start: number, end: number): ByteRange;
}

/**
 * The elements of a host's new list, from its elements in order: a string is a package's new JSON,
 * a number the index of a package kept from the old list. Each run of kept neighbours becomes one
 * slice of the old list file's bytes, commas included. In the old list, package i starts after "["
 * and after the comma that follows each package before it; the state holds each one's length in
 * each kind of list (the v1 list and its filtered lists, today's v4 and v3 contents).
 */
export function spliceList(
  oldList: LiveRanges,
  old: HostState,
  elements: Iterable<string | number>,
  offsets: Float64Array = listOffsets(old),
  kind: ListKind = "v1",
): (string | ByteRange)[] {
  const items: (string | ByteRange)[] = [];
  let run: [number, number] | undefined;
  for (const element of elements) {
    if (typeof element === "string") {
      if (run) items.push(oldList.range(run[0], run[1]));
      run = undefined;
      items.push(element);
      continue;
    }
    const start = offsets[element]!;
    const end = start + lengthAt(old, element, kind);
    if (run && run[1] + 1 === start) run[1] = end;
    else {
      if (run) items.push(oldList.range(run[0], run[1]));
      run = [start, end];
    }
  }
  if (run) items.push(oldList.range(run[0], run[1]));
  return items;
}

/** Where each package of the old list starts in its file (one list serves several splices). */
export function listOffsets(old: HostState, kind: ListKind = "v1"): Float64Array {
  const offsets = new Float64Array(old.names.length);
  for (let i = 0, at = 1; i < old.names.length; i++) {
    offsets[i] = at;
    at += lengthAt(old, i, kind) + 1;
  }
  return offsets;
}
