// `list.push(...items)` passes every item as an argument, and past some 100,000 of them (a million
// packages' filtered lists, a catalogue's coders in a config) V8 throws "Maximum call stack size
// exceeded". A list that grows with the catalogue is appended to with this instead.

/** Appends every item of `items` to `list`, one at a time; returns `list`. */
export function appendAll<T>(list: T[], items: Iterable<T>): T[] {
  for (const item of items) list.push(item);
  return list;
}
