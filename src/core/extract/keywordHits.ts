// Finds vocabulary words in a line with word boundaries that fit the script: words of spaced scripts must
// stand alone ("code" is not in "barcode") unless written with a "*" (see lexicon/types.ts); words of scripts
// written without spaces (CJK, Thai) match anywhere. One pass over the line, words bucketed by first letter.

export interface Hit {
  start: number;
  end: number;
  weight: number;
  /** Which list of a merged table the word came from (see wordTable); 0 for a single list. */
  kind: number;
}

/** Letters, digits and combining marks of scripts that separate words with spaces. */
const WORD_CHAR =
  /(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}])[\p{L}\p{N}\p{M}]/u;
const NEEDS_BOUNDARY =
  /^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Georgian}\p{Script=Armenian}\p{Script=Ethiopic}0-9]/u;
/** Joiners that mail text drops (see lines.ts), dropped from entries too so both spell a word the same. */
const JOINERS = /[\u200b-\u200d\u2060\ufeff\u00ad]/g;
/** How far a "*" word reaches into the rest of its compound or ending, in characters. */
const MAX_AFFIX = 16;

function isWordChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  const code = c.charCodeAt(0);
  // ASCII first: mail is mostly ASCII, and the Unicode test is the slow part of a scan.
  if (code < 128)
    return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
  return WORD_CHAR.test(c);
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

interface Word {
  text: string;
  weight: number;
  kind: number;
  boundary: boolean;
  anyPrefix: boolean;
  anySuffix: boolean;
}

export interface WordTable {
  /** Words starting with an ASCII character, by its code: tried only where a word starts. */
  ascii: Array<Word[] | undefined>;
  /** Words starting with any other character, by that character. */
  other: Map<string, Word[]>;
  /** Words that may end a compound: found with indexOf, then widened to the whole word. */
  compound: Word[];
}

type Entry = string | readonly [string, number] | readonly [string, number, number];

/** A table of words; entries are a word, [word, weight] or [word, weight, kind] (kind tags merged lists). */
export function wordTable(entries: readonly Entry[]): WordTable {
  const ascii: Array<Word[] | undefined> = new Array<Word[] | undefined>(128);
  const other = new Map<string, Word[]>();
  const compound: Word[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    const [entry, weight, kind] = typeof e === 'string' ? [e, 1, 0] : [e[0], e[1], e[2] ?? 0];
    const raw = entry.replace(JOINERS, '');
    if (seen.has(`${kind} ${raw}`)) continue;
    seen.add(`${kind} ${raw}`);
    const anyPrefix = raw.startsWith('*');
    const anySuffix = raw.length > 1 && raw.endsWith('*');
    const text = raw.slice(anyPrefix ? 1 : 0, anySuffix ? -1 : undefined);
    if (text === '') continue;
    const word = { text, weight, kind, boundary: NEEDS_BOUNDARY.test(text), anyPrefix, anySuffix };
    if (anyPrefix) {
      compound.push(word);
      continue;
    }
    const code = text.charCodeAt(0);
    if (code < 128) {
      (ascii[code] ??= []).push(word);
    } else {
      const bucket = other.get(text[0] as string) ?? [];
      bucket.push(word);
      other.set(text[0] as string, bucket);
    }
  }
  return { ascii, other, compound };
}

/** The end of a match of `word` at [at, at + text.length), or -1 when a boundary rule fails. */
function matchEnd(lower: string, word: Word, at: number): number {
  let end = at + word.text.length;
  if (!word.boundary) return end;
  if (word.anySuffix) {
    const limit = Math.min(lower.length, end + MAX_AFFIX);
    while (end < limit && isWordChar(lower[end])) end++;
    return isWordChar(lower[end]) ? -1 : end;
  }
  if (lower[end] === 's' && !isWordChar(lower[end + 1])) end++;
  const lastChar = word.text[word.text.length - 1];
  return isWordChar(lastChar) && isWordChar(lower[end]) ? -1 : end;
}

function tryBucket(lower: string, bucket: Word[], i: number, wordStart: boolean, hits: Hit[]): void {
  for (const word of bucket) {
    if (word.boundary && !wordStart) continue;
    if (!lower.startsWith(word.text, i)) continue;
    const end = matchEnd(lower, word, i);
    if (end !== -1) hits.push({ start: i, end, weight: word.weight, kind: word.kind });
  }
}

/** Every occurrence of every word in `lower`, sorted by start. A plural "s" is allowed after a word. */
export function findHits(lower: string, table: WordTable): Hit[] {
  const hits: Hit[] = [];
  let prevWord = false;
  for (let i = 0; i < lower.length; i++) {
    const code = lower.charCodeAt(i);
    if (code < 128) {
      const word = (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
      // Inside a word no ASCII entry can start: each needs a boundary before its first letter.
      const bucket = !prevWord || !word ? table.ascii[code] : undefined;
      if (bucket !== undefined) tryBucket(lower, bucket, i, !prevWord || !word, hits);
      prevWord = word;
      continue;
    }
    const c = lower[i] as string;
    const isWord = isWordChar(c);
    const bucket = table.other.get(c);
    if (bucket !== undefined) tryBucket(lower, bucket, i, !prevWord || !isWord, hits);
    prevWord = isWord;
  }
  for (const word of table.compound) {
    let at = lower.indexOf(word.text);
    while (at !== -1) {
      let start = at;
      const floor = Math.max(0, at - MAX_AFFIX);
      while (start > floor && isWordChar(lower[start - 1])) start--;
      const end = isWordChar(lower[start - 1]) ? -1 : matchEnd(lower, word, at);
      if (end !== -1) hits.push({ start, end, weight: word.weight, kind: word.kind });
      at = lower.indexOf(word.text, at + 1);
    }
  }
  hits.sort((a, b) => a.start - b.start || b.end - a.end || b.weight - a.weight);
  // The same span found twice in one list (a word in two languages) is one hit, at its highest weight.
  return hits.filter((h, k) => {
    const prev = hits[k - 1];
    return prev === undefined || h.start !== prev.start || h.end !== prev.end || h.kind !== prev.kind;
  });
}
