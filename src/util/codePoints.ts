// Code-point order, a published guarantee of the output (docs/api.md): package names, keys, coders
// and paths are sorted the same on every machine and in every locale, never by localeCompare.
// JavaScript's `<` compares UTF-16 code units, which is code-point order for every string without
// characters beyond U+FFFF (package names are ASCII by the name rule).

/** Compares two strings in code-point order: negative, zero for equal strings, or positive. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
