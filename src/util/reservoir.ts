// A sample picked from items as they pass, holding only the sample: verify --sample over the millions
// of files a deployment's index lists, shard after shard.

/**
 * `n` of the items handed to `add`, picked at random as they come (a reservoir: each has the same
 * chance, and only `n` are held however many pass), or all of them without `n`; `picked()` gives
 * them in the order they came.
 */
export function reservoir<T>(n: number | undefined, random: () => number) {
  const held: { at: number; item: T }[] = [];
  let seen = 0;
  return {
    add(item: T): void {
      const at = seen++;
      if (n === undefined || held.length < n) held.push({ at, item });
      else {
        const j = Math.floor(random() * seen);
        if (j < n) held[j] = { at, item };
      }
    },
    picked: (): T[] => held.sort((a, b) => a.at - b.at).map((h) => h.item),
    /** How many were handed. */
    get seen(): number {
      return seen;
    },
  };
}
