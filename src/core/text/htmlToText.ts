// The visible text of an HTML body, one block per line, with the spans the sender emphasised: the one
// HTML-to-text used for message previews and for extraction (OTP codes, links, text), so both read the same text.
import { decodeEntities } from '../extract/entities.ts';
import { htmlTokens } from '../extract/htmlTokens.ts';

export interface TextLine {
  text: string;
  /** Emphasised [start, end) ranges within `text`, sorted. */
  emph: Array<[number, number]>;
}

/**
 * Only this much of an HTML body is converted. The tokenizer is linear, but a 9 MB body still took over half a
 * second; mail puts what a reader (or a code search) needs far before this point.
 */
export const MAX_HTML_CHARS = 1_000_000;

const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'caption', 'center', 'dd', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header',
  'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tbody', 'td', 'tfoot', 'th',
  'thead', 'tr', 'ul', 'body', 'html',
]); // prettier-ignore

const VOID = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr',
]); // prettier-ignore

const EMPHASIS_TAGS = new Set(['b', 'strong', 'h1', 'h2', 'h3', 'code', 'pre', 'tt', 'kbd', 'samp', 'big']);

/** Deeper nesting than this is junk; bounding the search for an open element keeps closing tags O(1). */
const MAX_CLOSE_SEARCH = 64;
const MAX_STACK = 1024;

export const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff\u00ad\u034f]/g;

/** Whether inline CSS makes an element stand out: bold, large, letter-spaced or monospaced text. */
export function styleEmphasis(style: string): boolean {
  // Inline styles are short; a bound keeps the scans below cheap on hostile input.
  const css = style.slice(0, 2000).toLowerCase();
  if (/font-weight\s*:\s*(bold|bolder|[6-9]00)/.test(css)) return true;
  if (/letter-spacing\s*:\s*0*[1-9]/.test(css) || /letter-spacing\s*:\s*0*\.[1-9]/.test(css)) return true;
  if (/font-family\s*:[^;]*(monospace|courier|consolas|menlo)/.test(css)) return true;
  if (/font-size\s*:\s*(x+-)?large/.test(css)) return true;
  const size = /font-size\s*:\s*([0-9]{1,4}(?:\.[0-9]{1,4})?)\s*(px|pt|em|rem|%)?/.exec(css);
  if (size === null) return false;
  const value = Number(size[1]);
  switch (size[2]) {
    case 'pt':
      return value >= 14;
    case 'em':
    case 'rem':
      return value >= 1.3;
    case '%':
      return value >= 130;
    default:
      return value >= 18;
  }
}

function elementEmphasis(name: string, attrs: ReadonlyMap<string, string>): boolean {
  if (EMPHASIS_TAGS.has(name)) return true;
  const style = attrs.get('style');
  if (style !== undefined && styleEmphasis(style)) return true;
  const size = name === 'font' ? Number.parseInt(attrs.get('size') ?? '', 10) : NaN;
  return size >= 5;
}

class LineBuilder {
  readonly lines: TextLine[] = [];
  /** Characters of text in finished lines. */
  length = 0;
  private text = '';
  /** Whether `text` is empty or ends in a space, kept aside: asking the growing string would flatten it each time. */
  private spaceBefore = true;
  private emph: Array<[number, number]> = [];

  append(chunk: string, emphasised: boolean): void {
    let piece = chunk;
    if (piece.startsWith(' ') && this.spaceBefore) piece = piece.slice(1);
    if (piece === '') return;
    const start = this.text.length;
    this.text += piece;
    this.spaceBefore = piece.endsWith(' ');
    if (!emphasised) return;
    const last = this.emph[this.emph.length - 1];
    if (last !== undefined && last[1] === start) last[1] = this.text.length;
    else this.emph.push([start, this.text.length]);
  }

  flush(): void {
    const lead = this.text.length - this.text.trimStart().length;
    const text = this.text.trim();
    if (text !== '') {
      const emph = this.emph
        .map(([s, e]): [number, number] => [Math.max(0, s - lead), Math.min(text.length, e - lead)])
        .filter(([s, e]) => e > s);
      this.lines.push({ text, emph });
      this.length += text.length;
    }
    this.text = '';
    this.spaceBefore = true;
    this.emph = [];
  }

  /** Characters collected so far, the open line included. */
  get collected(): number {
    return this.length + this.text.length;
  }
}

/** `html` cut to MAX_HTML_CHARS, never inside a tag or between the two halves of a surrogate pair. */
function bounded(html: string): string {
  if (html.length <= MAX_HTML_CHARS) return html;
  const code = html.charCodeAt(MAX_HTML_CHARS - 1);
  const cut = html.slice(0, code >= 0xd800 && code <= 0xdbff ? MAX_HTML_CHARS - 1 : MAX_HTML_CHARS);
  const lt = cut.lastIndexOf('<');
  return lt > cut.lastIndexOf('>') ? cut.slice(0, lt) : cut;
}

/**
 * Visible text of an HTML body, one block element per line, whitespace collapsed as a browser would. Reads at
 * most MAX_HTML_CHARS of the HTML, and stops early once `enough` characters of text are collected.
 */
export function htmlToLines(html: string, enough = Infinity): TextLine[] {
  const out = new LineBuilder();
  const stack: Array<{ name: string; emph: boolean }> = [];
  let emphDepth = 0;
  for (const token of htmlTokens(bounded(html))) {
    if (out.collected >= enough) break;
    if (token.type === 'text') {
      const text = decodeEntities(token.text)
        .replace(ZERO_WIDTH, '')
        .replace(/[\s\u00a0]+/g, ' ');
      out.append(text, emphDepth > 0);
      continue;
    }
    const { name } = token;
    if (BLOCK.has(name)) out.flush();
    else if (name === 'img' || name === 'input') out.append(' ', false);
    if (token.closing) {
      const floor = Math.max(0, stack.length - MAX_CLOSE_SEARCH);
      for (let k = stack.length - 1; k >= floor; k--) {
        if (stack[k]?.name !== name) continue;
        for (const popped of stack.splice(k)) if (popped.emph) emphDepth--;
        break;
      }
    } else if (!token.selfClosing && !VOID.has(name) && stack.length < MAX_STACK) {
      const emph = elementEmphasis(name, token.attrs);
      stack.push({ name, emph });
      if (emph) emphDepth++;
    }
  }
  out.flush();
  return out.lines;
}

/** The visible text of HTML as a plain string, one block per line; `enough` as for htmlToLines. */
export function htmlToText(html: string, enough = Infinity): string {
  return htmlToLines(html, enough)
    .map((l) => l.text)
    .join('\n');
}
