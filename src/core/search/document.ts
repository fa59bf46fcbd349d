// The search document of a message or a request: its words with positions and a weight per field, as tsvector
// input. The weight says which field a word came from, so `from:acme` reads the same index as a bare word.
import { htmlToText } from '../text/htmlToText.ts';
import { lexeme, searchTokens } from './tokens.ts';

/** tsvector weights by field; `search=` operators ask for one (query.ts). */
export const WEIGHT = { subject: 'A', from: 'B', to: 'C', body: 'D' } as const;
export const REQUEST_WEIGHT = { path: 'A', query: 'B', headers: 'C', body: 'D' } as const;
type Weight = 'A' | 'B' | 'C' | 'D';

/** PostgreSQL keeps positions up to 16,383; later words all sit at the last one (still found as words). */
const MAX_POSITION = 16_383;
/** PostgreSQL keeps 256 positions of a word; more only make the input longer. */
const MAX_POSITIONS_PER_WORD = 256;
/**
 * Only this many characters of one field are read: a tsvector must stay under 1 MB, and mail puts what
 * anyone searches for far before this point (htmlToText stops at 1,000,000 too).
 */
export const MAX_FIELD_CHARS = 1_000_000;
/** A document stops taking new words past this many characters of lexemes, well under the 1 MB limit. */
const MAX_LEXEME_CHARS = 400_000;

export type DocumentField = readonly [weight: Weight, text: string | null | undefined];

/**
 * The fields' words as tsvector input ("'word':1A,7D 'other':2A"). Fields are two positions apart, so a
 * quoted phrase never matches across two fields.
 */
export function searchDocument(fields: readonly DocumentField[]): string {
  // Each word's index into two parallel lists, its positions as tsvector text and how many: this runs for every
  // captured request and message, and an array of position strings per word was most of its cost.
  const slot = new Map<string, number>();
  const entries: string[] = [];
  const counts: number[] = [];
  let position = 0;
  let lexemeChars = 0;
  for (const [weight, text] of fields) {
    if (text === null || text === undefined || text === '') continue;
    position += 1;
    for (const word of searchTokens(text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text)) {
      position = Math.min(position + 1, MAX_POSITION);
      const at = slot.get(word);
      if (at === undefined) {
        if (lexemeChars > MAX_LEXEME_CHARS) continue;
        lexemeChars += word.length + 8;
        slot.set(word, entries.length);
        entries.push(`${lexeme(word)}:${position}${weight}`);
        counts.push(1);
      } else if (counts[at]! < MAX_POSITIONS_PER_WORD && position < MAX_POSITION) {
        entries[at] += `,${position}${weight}`;
        counts[at]! += 1;
      }
    }
  }
  return entries.join(' ');
}

/** The fields of a message row its document is made of, as the writer holds them (JSON as text or parsed). */
export interface MessageDocumentFields {
  subject?: string | null;
  from_header: string;
  to_addrs: unknown;
  captured_for: unknown;
  text_body?: string | null;
  html_body?: string | null;
  attachments?: unknown;
}

/** A message's document: subject, sender, recipients, the whole text and HTML-as-text bodies, file names. */
export function messageDocument(row: MessageDocumentFields): string {
  const attachments = fromJson(row.attachments);
  const fileNames = Array.isArray(attachments)
    ? attachments
        .map((a: { fileName?: unknown }) => (typeof a?.fileName === 'string' ? a.fileName : ''))
        .join(' ')
    : '';
  const html = row.html_body ?? null;
  return searchDocument([
    [WEIGHT.subject, row.subject],
    [WEIGHT.from, row.from_header],
    [WEIGHT.to, `${textOf(row.to_addrs)} ${textOf(row.captured_for)}`],
    [WEIGHT.body, row.text_body],
    [WEIGHT.body, html === null || html === '' ? null : htmlToText(html.slice(0, MAX_FIELD_CHARS))],
    [WEIGHT.body, fileNames],
  ]);
}

/** The fields of a request row its document is made of. */
export interface RequestDocumentFields {
  path: string;
  query?: string | null;
  headers: unknown;
  body: Uint8Array;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A request's document: path, query string (decoded), header names and values, and a body that is text. */
export function requestDocument(row: RequestDocumentFields): string {
  const headers = fromJson(row.headers);
  const pairs = Array.isArray(headers) ? headers.filter((h): h is unknown[] => Array.isArray(h)) : [];
  const headerText = pairs.map((h) => `${String(h[0])} ${String(h[1])}`).join(' ');
  const contentType = pairs.find((h) => String(h[0]).toLowerCase() === 'content-type')?.[1];
  const body = bodyText(row.body);
  const form = typeof contentType === 'string' && /^\s*application\/x-www-form-urlencoded/i.test(contentType);
  return searchDocument([
    [REQUEST_WEIGHT.path, decodePercent(row.path)],
    [REQUEST_WEIGHT.query, row.query === null || row.query === undefined ? null : decodePercent(row.query)],
    [REQUEST_WEIGHT.headers, headerText],
    // A form's values as it means them ("x%40y.test" is x@y.test).
    [REQUEST_WEIGHT.body, form && body !== null ? decodePercent(body) : body],
  ]);
}

/** The body as text when it is UTF-8 (JSON, forms, XML, plain text); a binary body has no words. */
function bodyText(body: Uint8Array): string | null {
  if (body.byteLength === 0) return null;
  const head = body.byteLength > MAX_FIELD_CHARS ? body.subarray(0, MAX_FIELD_CHARS) : body;
  // A cut body may end inside a character: up to three bytes short of the cut is still its text.
  for (let short = 0; short <= (head === body ? 0 : 3); short++) {
    try {
      return utf8.decode(head.subarray(0, head.byteLength - short));
    } catch {
      // Not text (yet): try one byte shorter, or give up.
    }
  }
  return null;
}

/** `a%20b+c` as a form or a URL means it ("a b c"); malformed escapes stay as sent. */
function decodePercent(text: string): string {
  const spaced = text.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

function fromJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

function textOf(value: unknown): string {
  const parsed = fromJson(value);
  return Array.isArray(parsed) ? parsed.join(' ') : typeof parsed === 'string' ? parsed : '';
}
