// `search=` for the lists: the text as sent, parsed (parse.ts) into what the store applies (query.ts).
import { parseSearch, type SearchStream } from './parse.ts';
import { searchFilter, type SearchFilter } from './query.ts';

/** The filter of a search, or undefined when it is absent or blank; a mistake throws invalid_input (`search`). */
export function compileSearch(text: string | undefined, stream: SearchStream): SearchFilter | undefined {
  if (text === undefined) return undefined;
  const terms = parseSearch(text, stream);
  return terms.length === 0 ? undefined : searchFilter(terms);
}
