// The words search reads and asks for: one tokenizer for the stored documents and for the queries, so a word
// typed in a search is the same word the writer stored, on both stores (the database only compares them).

/** A word is cut to this many characters: longer runs (base64, hashes) still match by their start. */
export const TOKEN_CHARS = 64;

const WORD = /[\p{L}\p{N}]+/gu;

/** The lower-cased runs of letters and digits of `text`, in order; everything else separates. */
export function searchTokens(text: string): string[] {
  // match() hands back the words as strings; matchAll() made a match array (and a copy of the regex) per word.
  const out = text.toLowerCase().match(WORD) ?? [];
  for (let i = 0; i < out.length; i++) if (out[i]!.length > TOKEN_CHARS) out[i] = cut(out[i]!);
  return out;
}

/** Cut to TOKEN_CHARS code points, never inside a surrogate pair. */
function cut(word: string): string {
  if (word.length <= TOKEN_CHARS) return word;
  // Counts code points up to the cut instead of splitting the whole word (a 1 KB run in a captured body was
  // the largest part of building its search document).
  let end = 0;
  for (let points = 0; points < TOKEN_CHARS && end < word.length; points++) {
    const unit = word.charCodeAt(end);
    const next = word.charCodeAt(end + 1);
    end += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return word.slice(0, end);
}

const NEEDS_ESCAPE = /['\\]/;

/**
 * A word as a quoted tsvector or tsquery lexeme. Search tokens hold no quote or backslash; the search-words
 * entries (searchIndexes.ts) keep the character before a word, which may be either.
 */
export function lexeme(word: string): string {
  return NEEDS_ESCAPE.test(word) ? `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}'` : `'${word}'`;
}
