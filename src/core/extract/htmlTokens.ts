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

const NO_ATTRS: ReadonlyMap<string, string> = new Map();

/**
 * The tokens of `html` in order: raw text (entities still encoded; adjacent runs joined, so a reference is never
 * split) and tags. Comments, CDATA, doctypes and processing instructions yield nothing, nor does a tag cut off
 * by the end of the input. Never throws; linear in the input.
 */
export function* htmlTokens(html: string): Generator<HtmlToken> {
  const ready: HtmlToken[] = [];
  let textStart = -1;
  let textEnd = -1;
  let hiddenBy = '';
  let tagName = '';
  let attrs = new Map<string, string>();
  let attrName = '';
  let attrValue = '';

  const flushText = (): void => {
    if (textStart === -1) return;
    if (hiddenBy === '') ready.push({ type: 'text', text: html.slice(textStart, textEnd) });
    textStart = -1;
  };
  const openTag = (selfClosing: boolean): void => {
    flushText();
    const name = tagName;
    if (hiddenBy === '') {
      ready.push({ type: 'tag', name, closing: false, selfClosing, attrs: attrs.size === 0 ? NO_ATTRS : attrs });
      if (!selfClosing && HIDDEN.has(name)) hiddenBy = name;
    }
    attrs = new Map();
  };
  const callbacks: TokenizerCallbacks = {
    ontext(start, end) {
      if (textStart !== -1 && textEnd === start) {
        textEnd = end;
        return;
      }
      flushText();
      textStart = start;
      textEnd = end;
    },
    onopentagname(start, end) {
      flushText();
      tagName = html.slice(start, end).toLowerCase();
      attrs = new Map();
    },
    onattribname(start, end) {
      attrName = html.slice(start, end).toLowerCase();
      attrValue = '';
    },
    onattribdata(start, end) {
      attrValue += html.slice(start, end);
    },
    onattribend() {
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
      const name = html.slice(start, end).toLowerCase();
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
  const tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: false }, callbacks);
  for (let at = 0; at < html.length; at += CHUNK) {
    tokenizer.write(html.slice(at, at + CHUNK));
    // The last text run may go on in the next chunk; it is held back until something else follows it.
    yield* ready.splice(0);
  }
  tokenizer.end();
  yield* ready.splice(0);
}
