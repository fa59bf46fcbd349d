// Text runs and tags of a mail body, read by htmlparser2's tokenizer (the HTML spec's tokenization rules).
// Only the token stream is ours: which elements hide their content, and attributes gathered into a map.
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

export type HtmlToken =
  | { type: 'text'; text: string }
  | {
      type: 'tag';
      name: string;
      closing: boolean;
      selfClosing: boolean;
      /** Lower-cased names, the first of a repeated name wins; values as written (entities still encoded). */
      attrs: ReadonlyMap<string, string>;
    };

/**
 * Elements whose content is not visible text. The tokenizer already reads script, style, title and textarea as
 * raw text; noscript and xml are tokenized as markup, so their tokens are dropped up to the matching end tag.
 */
const HIDDEN = new Set(['script', 'style', 'title', 'textarea', 'noscript', 'xml']);

/** Input fed to the tokenizer per step, so a caller that stops early (a preview) does not pay for the rest. */
const CHUNK = 16_384;

/**
 * A quoted attribute value that never closes swallows the rest of the input (as in a browser); mail templates do
 * leave such quotes, so the tag is cut at the first '>' after the quote and reading goes on from there. Each cut
 * re-reads the remaining input, so only this many are made.
 */
const MAX_QUOTE_CUTS = 4;

const NO_ATTRS: ReadonlyMap<string, string> = new Map();

/**
 * The tokens of `html` in order: raw text (entities still encoded; adjacent runs joined, so a reference is never
 * split) and tags. Comments, CDATA, doctypes and processing instructions yield nothing, nor does a tag cut off
 * by the end of the input. Never throws.
 */
export function* htmlTokens(html: string): Generator<HtmlToken> {
  const ready: HtmlToken[] = [];
  /** Where the running tokenizer's input starts in `html`: its indices are relative to it. */
  let base = 0;
  let textStart = -1;
  let textEnd = -1;
  let hiddenBy = '';
  let inTag = false;
  let tagName = '';
  let attrs = new Map<string, string>();
  let attrName = '';
  let attrValue = '';
  /** Where the value of the attribute being read starts, while its end is not reached; -1 otherwise. */
  let valueStart = -1;

  const flushText = (): void => {
    if (textStart === -1) return;
    if (hiddenBy === '') ready.push({ type: 'text', text: html.slice(textStart, textEnd) });
    textStart = -1;
  };
  const openTag = (selfClosing: boolean): void => {
    inTag = false;
    const name = tagName;
    if (hiddenBy === '') {
      ready.push({
        type: 'tag',
        name,
        closing: false,
        selfClosing,
        attrs: attrs.size === 0 ? NO_ATTRS : attrs,
      });
      if (!selfClosing && HIDDEN.has(name)) hiddenBy = name;
    }
    attrs = new Map();
  };
  const callbacks: TokenizerCallbacks = {
    ontext(start, end) {
      if (textStart !== -1 && textEnd === base + start) {
        textEnd = base + end;
        return;
      }
      flushText();
      textStart = base + start;
      textEnd = base + end;
    },
    onopentagname(start, end) {
      flushText();
      inTag = true;
      tagName = html.slice(base + start, base + end).toLowerCase();
      attrs = new Map();
    },
    onattribname(start, end) {
      attrName = html.slice(base + start, base + end).toLowerCase();
      attrValue = '';
      valueStart = -1;
    },
    onattribdata(start, end) {
      if (valueStart === -1) valueStart = base + start;
      attrValue += html.slice(base + start, base + end);
    },
    onattribend() {
      valueStart = -1;
      if (!attrs.has(attrName)) attrs.set(attrName, attrValue);
    },
    onopentagend() {
      openTag(false);
    },
    onselfclosingtag() {
      openTag(true);
    },
    onclosetag(start, end) {
      flushText();
      const name = html.slice(base + start, base + end).toLowerCase();
      if (hiddenBy !== '' && name !== hiddenBy) return;
      hiddenBy = '';
      ready.push({ type: 'tag', name, closing: true, selfClosing: false, attrs: NO_ATTRS });
    },
    oncomment: flushText,
    oncdata: flushText,
    ondeclaration: flushText,
    onprocessinginstruction: flushText,
    // Entities are left encoded (decodeEntities: false); callers decode text and attributes by their own rules.
    onattribentity() {},
    ontextentity() {},
    onend: flushText,
  };

  /** After the input ended inside a quoted value: the tag cut at the next '>', and where reading resumes (or -1). */
  const cutAtQuote = (): number => {
    if (!inTag || valueStart === -1) return -1;
    const gt = html.indexOf('>', valueStart);
    if (gt === -1) return -1;
    if (!attrs.has(attrName)) attrs.set(attrName, html.slice(valueStart, gt));
    valueStart = -1;
    openTag(false);
    return gt + 1;
  };

  for (let cuts = 0; ; cuts++) {
    const tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: false }, callbacks);
    for (let at = base; at < html.length; at += CHUNK) {
      tokenizer.write(html.slice(at, at + CHUNK));
      // The last text run may go on in the next chunk; it is held back until something else follows it.
      yield* ready.splice(0);
    }
    tokenizer.end();
    const resume = cuts < MAX_QUOTE_CUTS ? cutAtQuote() : -1;
    yield* ready.splice(0);
    if (resume === -1) return;
    base = resume;
  }
}
