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
  return Array.from(word).slice(0, TOKEN_CHARS).join('');
}

/** A word as a quoted tsvector or tsquery lexeme (tokens hold no quote or backslash; escaping is cheap insurance). */
export function lexeme(word: string): string {
  return `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}
