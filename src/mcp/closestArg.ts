// "did you mean subject_contains?": the valid argument an unknown one most likely meant. An agent that passes
// `subject` or `timeout` meant a filter or a bound; ignoring the name silently returned the wrong mail.

/** Edit distance (insertions, deletions, substitutions), for names of a few dozen characters. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** Lower case without separators, so `subjectContains` and `subject-contains` read as `subject_contains`. */
const plain = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The valid name `given` most likely meant: the same name in another spelling; else one that starts with it or
 * that it starts with (`subject` -> `subject_contains`, `timeout` -> `timeout_seconds`); else the nearest by edit
 * distance within a third of its length. undefined when nothing is close.
 */
export function closestArg(given: string, valid: readonly string[]): string | undefined {
  const g = plain(given);
  if (g === '') return undefined;
  const same = valid.find((v) => plain(v) === g);
  if (same !== undefined) return same;
  const prefixed = valid.filter((v) => plain(v).startsWith(g) || g.startsWith(plain(v)));
  if (prefixed.length > 0) return prefixed.sort((a, b) => a.length - b.length)[0];
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(g.length / 3)) + 1;
  for (const v of valid) {
    const d = distance(g, plain(v));
    if (d < bestDistance) {
      best = v;
      bestDistance = d;
    }
  }
  return best;
}
