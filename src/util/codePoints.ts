// Code-point order, a published guarantee of the output (docs/api.md): package names, keys, coders
// and paths are sorted the same on every machine and in every locale, never by localeCompare.
// JavaScript's `<` compares UTF-16 code units, which is code-point order for every string without
// characters beyond U+FFFF (package names are ASCII by the name rule).

/** Compares two strings in code-point order: negative, zero for equal strings, or positive. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Where `value` is in `sorted` (in code-point order), by halves; -1 when it is not there. */
export function findCodePoints(sorted: readonly string[], value: string): number {
  let [low, high] = [0, sorted.length - 1];
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const order = compareCodePoints(sorted[mid]!, value);
    if (order === 0) return mid;
    if (order < 0) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}
