// A parsed search as the store applies it: one tsquery over the search document (document.ts) and the
// conditions on columns. Kept apart from the SQL so both stores and every door read the same meaning.
import { WEIGHT } from './document.ts';
import type { SearchField, SearchTerm } from './parse.ts';
import { lexeme } from './tokens.ts';

/** One word a matching row must have (from a positive term), as the store may ask its word index for it. */
export interface RequiredWord {
  /** The lower-cased token, unquoted. */
  word: string;
  /** A word prefix (the last word of an unquoted term), not the whole word. */
  prefix: boolean;
  /** The field's weight label (from:, subject:, to:), or '' for any field. */
  weight: string;
}

export interface SearchFilter {
  /** tsquery text the row's search_doc must match, or undefined when no term reads words. */
  match?: string | undefined;
  /** Every word the positive terms of `match` require: each matching row has all of them. */
  required?: RequiredWord[] | undefined;
  hasAttachment?: boolean | undefined;
  isRead?: boolean | undefined;
  /** received_at >= this (after:). */
  receivedFrom?: Date | undefined;
  /** received_at < this (before:). */
  receivedBefore?: Date | undefined;
  /** Two terms contradict each other (is:read is:unread): nothing matches. */
  nothing?: boolean | undefined;
}

const FIELD_WEIGHT: Record<SearchField, string> = {
  from: WEIGHT.from,
  to: WEIGHT.to,
  subject: WEIGHT.subject,
};

/**
 * One term's words as a tsquery: a word is a word prefix ("invoice" finds "invoices"); several words (a phrase,
 * or "acme.example" typed as one) are next to each other in order, the last a prefix unless quoted.
 */
function textQuery(words: string[], phrase: boolean, field: SearchField | undefined): string {
  const weight = field === undefined ? '' : FIELD_WEIGHT[field];
  const parts = words.map((word, i) => {
    const prefix = !phrase && i === words.length - 1;
    const label = `${prefix ? '*' : ''}${weight}`;
    return `${lexeme(word)}${label === '' ? '' : `:${label}`}`;
  });
  return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' <-> ')})`;
}

/** The filter of a parsed search; all terms combine with AND. */
export function searchFilter(terms: readonly SearchTerm[]): SearchFilter {
  const filter: SearchFilter = {};
  const words: string[] = [];
  const required: RequiredWord[] = [];
  const flag = (key: 'hasAttachment' | 'isRead', value: boolean) => {
    if (filter[key] !== undefined && filter[key] !== value) filter.nothing = true;
    filter[key] = value;
  };
  for (const term of terms) {
    switch (term.kind) {
      case 'text': {
        const q = textQuery(term.words, term.phrase, term.field);
        words.push(term.negated ? `!${q}` : q);
        if (!term.negated) {
          const weight = term.field === undefined ? '' : FIELD_WEIGHT[term.field];
          term.words.forEach((word, i) =>
            required.push({ word, prefix: !term.phrase && i === term.words.length - 1, weight }),
          );
        }
        break;
      }
      case 'hasAttachment':
        flag('hasAttachment', !term.negated);
        break;
      case 'isRead':
        flag('isRead', term.negated ? !term.value : term.value);
        break;
      case 'after':
      case 'before': {
        // -after:X is before:X and the other way round.
        const from = (term.kind === 'after') !== term.negated;
        if (from) {
          if (filter.receivedFrom === undefined || term.at > filter.receivedFrom)
            filter.receivedFrom = term.at;
        } else if (filter.receivedBefore === undefined || term.at < filter.receivedBefore) {
          filter.receivedBefore = term.at;
        }
        break;
      }
    }
  }
  // Positive words first: PostgreSQL's GIN index reads the words and only checks the exclusions on its rows.
  words.sort((a, b) => Number(a.startsWith('!')) - Number(b.startsWith('!')));
  if (words.length > 0) filter.match = words.join(' & ');
  if (required.length > 0) filter.required = required;
  return filter;
}
