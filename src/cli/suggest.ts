/** "Did you mean" for a mistyped command or option: the nearest known word, if near. */

/** Edit distance (insertions, deletions, substitutions, adjacent swaps) of two short words. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate nearest to `word` when it is near enough to be a slip (at most 2 edits, and
 * fewer than a third of the word), or one that `word` starts (an abbreviation).
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; d: number } | undefined;
  for (const candidate of candidates) {
    const d = distance(word, candidate);
    if (best === undefined || d < best.d) best = { candidate, d };
  }
  if (best && best.d <= Math.min(2, Math.floor(word.length / 3))) return best.candidate;
  const prefixed = candidates.filter((c) => word.length >= 3 && c.startsWith(word));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
