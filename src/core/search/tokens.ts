// The words search reads and asks for: one tokenizer for the stored documents and for the queries, so a word
// typed in a search is the same word the writer stored, on both stores (the database only compares them).

/** A word is cut to this many characters: longer runs (base64, hashes) still match by their start. */
export const TOKEN_CHARS = 64;

const WORD = /[\p{L}\p{N}]+/gu;

/** The lower-cased runs of letters and digits of `text`, in order; everything else separates. */
export function searchTokens(text: string): string[] {
  const out: string[] = [];
  for (const [word] of text.toLowerCase().matchAll(WORD)) out.push(cut(word));
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

/** A word as a quoted tsvector or tsquery lexeme (tokens hold no quote or backslash; escaping is cheap insurance). */
export function lexeme(word: string): string {
  return `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}
