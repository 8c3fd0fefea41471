// The names of a valid catalogue as the hosts' config generators (targets/) take them: hosts,
// packages, coders and categories, each list sorted in code-point order.
import { compareCodePoints } from "../util/codePoints.js";

/**
 * What the generators may list in configs. Hosts and package names have passed the name rule;
 * coders are free text, and reach a config only as the hex key of routes/filterValue.ts or as a
 * pattern every character of which is escaped (routes/valuePattern.ts).
 */
export interface CatalogueNames {
  hosts: readonly string[];
  packages: ReadonlyMap<string, readonly string[]>;
  /** Per host, its distinct coders, sorted (code-point order). */
  coders: ReadonlyMap<string, readonly string[]>;
  /**
   * Per host, each category of its packages (names, sorted) with the coders that have packages in
   * it (sorted): the category and category-coder lists the build writes, for hosts that list them.
   */
  categories: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;
}

/** What the target generators take, from each host's packages in list order. */
export function namesOf(
  hosts: readonly string[],
  packages: ReadonlyMap<string, readonly { name: string; category: string; coder: string }[]>,
): CatalogueNames {
  const each = <T>(of: (list: readonly { name: string; category: string; coder: string }[]) => T) =>
    new Map(hosts.map((host) => [host, of(packages.get(host) ?? [])]));
  return {
    hosts,
    packages: each((list) => list.map((p) => p.name)),
    coders: each((list) => distinctSorted(list.map((p) => p.coder))),
    categories: each(
      (list) =>
        new Map(
          distinctSorted(list.map((p) => p.category)).map((category) => [
            category,
            distinctSorted(list.filter((p) => p.category === category).map((p) => p.coder)),
          ]),
        ),
    ),
  };
}

/** Each value once, sorted in code-point order. */
function distinctSorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareCodePoints);
}
