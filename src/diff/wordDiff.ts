// A short word diff of two texts (an app's descriptions), or line diff (its meta.xml): the words or
// lines removed and added, with a few of context either side and the unchanged runs between elided.

export interface WordChange {
  kind: "same" | "removed" | "added";
  /** The words, joined by single spaces; an elided run of unchanged words is `…`. */
  text: string;
}

/** Words of unchanged text kept beside a change. */
const CONTEXT = 3;

/** Past this many cells (words × words), the texts are shown as one removal and one addition. */
const MAX_CELLS = 4_000_000;

function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== "");
}

/** The longest common subsequence's edit script, as runs of same/removed/added tokens (words or lines). */
function editScript(a: readonly string[], b: readonly string[]): { kind: WordChange["kind"]; words: string[] }[] {
  const n = a.length;
  const m = b.length;
  // lengths[i * (m + 1) + j]: the LCS of a[i..] and b[j..].
  const lengths = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lengths[i * (m + 1) + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * (m + 1) + j + 1]! + 1
          : Math.max(lengths[(i + 1) * (m + 1) + j]!, lengths[i * (m + 1) + j + 1]!);
  const runs: { kind: WordChange["kind"]; words: string[] }[] = [];
  const push = (kind: WordChange["kind"], word: string) => {
    const last = runs.at(-1);
    if (last?.kind === kind) last.words.push(word);
    else runs.push({ kind, words: [word] });
  };
  let i = 0;
  let j = 0;
  // On a tie the removal comes first: a replaced word reads as "[-old-] {+new+}".
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      push("same", a[i]!);
      i++;
      j++;
    } else if (j < m && (i === n || lengths[i * (m + 1) + j + 1]! > lengths[(i + 1) * (m + 1) + j]!))
      push("added", b[j++]!);
    else push("removed", a[i++]!);
  }
  return runs;
}

/** The changes from `from` to `to`, word by word; empty when they have the same words. */
export function wordDiff(from: string, to: string): WordChange[] {
  return tokenDiff(words(from), words(to), " ");
}

/** The changes from `from` to `to`, line by line (a run's lines joined by `\n`); empty when they have the same lines. */
export function lineDiff(from: string, to: string): WordChange[] {
  const lines = (text: string) => text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n");
  return tokenDiff(lines(from), lines(to), "\n");
}

function tokenDiff(a: string[], b: string[], separator: string): WordChange[] {
  const runs =
    (a.length + 1) * (b.length + 1) > MAX_CELLS
      ? [
          { kind: "removed" as const, words: a },
          { kind: "added" as const, words: b },
        ].filter((r) => r.words.length > 0)
      : editScript(a, b);
  if (runs.every((r) => r.kind === "same")) return [];
  return runs.map((run, index) => {
    if (run.kind !== "same") return { kind: run.kind, text: run.words.join(separator) };
    const first = index === 0;
    const last = index === runs.length - 1;
    const keep = (first ? 0 : CONTEXT) + (last ? 0 : CONTEXT);
    if (run.words.length <= keep + 1) return { kind: "same", text: run.words.join(separator) };
    const head = first ? [] : run.words.slice(0, CONTEXT);
    const tail = last ? [] : run.words.slice(-CONTEXT);
    return { kind: "same", text: [...head, "…", ...tail].join(separator) };
  });
}
