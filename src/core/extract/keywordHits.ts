// Finds vocabulary words in a line with word boundaries that fit the script: Latin and Cyrillic words
// must stand alone ("code" is not in "barcode"), CJK words are matched anywhere.

export interface Hit {
  start: number;
  end: number;
  weight: number;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
const NEEDS_BOUNDARY = /^[\p{Script=Latin}\p{Script=Cyrillic}0-9]/u;

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && WORD_CHAR.test(c);
}

/** Lower-cases one UTF-16 unit at a time so offsets in the result match the original line. */
export function lowerSameLength(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const c of text) {
    const l = c.toLowerCase();
    out += l.length === c.length ? l : c;
  }
  return out;
}

export interface WordTable {
  words: ReadonlyArray<{ text: string; weight: number; boundary: boolean }>;
}

export function wordTable(entries: ReadonlyArray<readonly [string, number]> | readonly string[]): WordTable {
  return {
    words: entries.map((e) => {
      const [text, weight] = typeof e === 'string' ? [e, 1] : e;
      return { text, weight, boundary: NEEDS_BOUNDARY.test(text) };
    }),
  };
}

/** Every occurrence of every word in `lower`, sorted by start. A plural "s" is allowed after a word. */
export function findHits(lower: string, table: WordTable): Hit[] {
  const hits: Hit[] = [];
  for (const { text, weight, boundary } of table.words) {
    let at = lower.indexOf(text);
    while (at !== -1) {
      let end = at + text.length;
      if (boundary && lower[end] === 's' && !isWordChar(lower[end + 1])) end++;
      const lastChar = text[text.length - 1];
      const ok =
        !boundary ||
        ((!isWordChar(text[0]) || !isWordChar(lower[at - 1])) &&
          (!isWordChar(lastChar) || !isWordChar(lower[end])));
      if (ok) hits.push({ start: at, end, weight });
      at = lower.indexOf(text, at + 1);
    }
  }
  return hits.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** Whether any word of the table occurs in `lower`. */
export function hasAny(lower: string, table: WordTable): boolean {
  return findHits(lower, table).length > 0;
}
