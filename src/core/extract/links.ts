// Lists the links of an email: anchors and image-map areas of the HTML part, and bare URLs of the
// text part, de-duplicated, each with its anchor text and kind. Links are never fetched.
import { decodeAttribute, decodeEntities } from './entities.ts';
import { htmlTokens } from './htmlTokens.ts';
import { linkKind, type LinkKind } from './linkKind.ts';
import { htmlToPlainText } from './lines.ts';

export type { LinkKind } from './linkKind.ts';

export interface ExtractedLink {
  url: string;
  text: string;
  kind: LinkKind;
}

export interface LinksInput {
  text?: string | null;
  html?: string | null;
}

const SKIPPED_SCHEMES = new Set([
  'mailto',
  'tel',
  'sms',
  'javascript',
  'vbscript',
  'data',
  'cid',
  'about',
  'file',
]);
const MAX_TEXT = 200;
const MAX_LINKS = 500;
const GENERIC_TEXT =
  /^(click here|here|link|this link|click|tap here|open|learn more|ici|hier|aquí|aqui|qui|こちら)$/i;

/** The URL an href points at, or null for in-page anchors, mail/phone/script links and relative paths. */
export function usableUrl(href: string): string | null {
  const url = decodeAttribute(href)
    .replace(/[\t\r\n]/g, '')
    .trim();
  if (url === '' || url.startsWith('#')) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  // Relative links have no meaning outside the sender's site; app deep links (myapp://...) are kept.
  if (scheme === null) return url.startsWith('//') ? `https:${url}` : null;
  return SKIPPED_SCHEMES.has((scheme[1] as string).toLowerCase()) ? null : url;
}

function clean(text: string): string {
  const folded = decodeEntities(text)
    .replace(/[\u200b-\u200d\u2060\ufeff\u00ad]/g, '')
    .replace(/[\s\u00a0]+/g, ' ')
    .trim();
  return folded.length > MAX_TEXT ? `${folded.slice(0, MAX_TEXT - 1)}…` : folded;
}

/** Strips what usually follows a URL in prose: sentence punctuation, and a ")" it did not open. */
export function trimUrl(raw: string): string {
  let url = raw;
  for (;;) {
    const last = url[url.length - 1];
    if (last === undefined) return url;
    if ('.,;:!?\'">]}*'.includes(last)) {
      url = url.slice(0, -1);
      continue;
    }
    if (last === ')') {
      const opens = url.split('(').length - 1;
      const closes = url.split(')').length - 1;
      if (closes > opens) {
        url = url.slice(0, -1);
        continue;
      }
    }
    return url;
  }
}

/** A link as found, with what the primary-link choice needs besides its kind. */
export interface FoundLink extends ExtractedLink {
  /** An anchor around an image and no text: a logo, banner, badge or tracking pixel. */
  imageOnly: boolean;
  /** Visible words before and after the link, for kinds its own text leaves open. */
  context: string;
  /** Where it came from: the HTML part's anchors, or a bare URL in a text. */
  source: 'html' | 'text';
}

/** How much visible text on each side of a link is kept as its context. */
const CONTEXT_BEFORE = 300;
const CONTEXT_AFTER = 150;
/** Links still collecting the text after them. */
const MAX_WAITING = 16;

class LinkList {
  readonly links: FoundLink[] = [];
  private readonly byUrl = new Map<string, FoundLink>();

  add(url: string, text: string, found: Omit<FoundLink, 'url' | 'text' | 'kind'>): FoundLink | null {
    const existing = this.byUrl.get(url);
    if (existing !== undefined) {
      // First occurrence keeps its place; a more telling label replaces a generic or missing one, and a text
      // link to the same place as a logo makes it more than an image.
      if (betterText(text, existing.text)) existing.text = text;
      if (!found.imageOnly) existing.imageOnly = false;
      if (existing.context === '') existing.context = found.context;
      return null;
    }
    if (this.links.length >= MAX_LINKS) return null;
    const link: FoundLink = { url, text, kind: 'other', ...found };
    this.byUrl.set(url, link);
    this.links.push(link);
    return link;
  }
}

function betterText(candidate: string, current: string): boolean {
  if (candidate === '' || candidate === current) return false;
  if (current === '' || /^https?:\/\//i.test(current)) return true;
  return GENERIC_TEXT.test(current) && !GENERIC_TEXT.test(candidate);
}

const BLOCK_TAGS = new Set([
  'p', 'div', 'td', 'th', 'tr', 'table', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'br', 'hr',
  'section', 'article', 'header', 'footer', 'center', 'blockquote',
]); // prettier-ignore

function htmlLinks(html: string, list: LinkList): void {
  let open: { url: string | null; text: string; fallback: string; image: boolean; before: string } | null =
    null;
  // Visible text seen so far (its tail), and the links still collecting the text after them.
  let seen = '';
  let waiting: Array<{ link: FoundLink; after: string }> = [];
  const addText = (text: string): void => {
    seen = (seen + text).slice(-CONTEXT_BEFORE * 2);
    if (waiting.length === 0) return;
    for (const w of waiting) w.after += text;
    waiting = waiting.filter((w) => {
      if (w.after.length < CONTEXT_AFTER) return true;
      w.link.context = clean(`${w.link.context} ${w.after.slice(0, CONTEXT_AFTER)}`);
      return false;
    });
  };
  const finish = (): void => {
    if (open?.url) {
      const text = clean(open.text);
      const link = list.add(open.url, text || clean(open.fallback), {
        imageOnly: text === '' && open.image,
        context: open.before,
        source: 'html',
      });
      if (link !== null) waiting.push({ link, after: '' });
      // Links side by side (a row of icons) share the text after them; a few waiting keeps each text O(1).
      if (waiting.length > MAX_WAITING) {
        const done = waiting.shift() as { link: FoundLink; after: string };
        done.link.context = clean(`${done.link.context} ${done.after.slice(0, CONTEXT_AFTER)}`);
      }
    }
    open = null;
  };
  for (const token of htmlTokens(html)) {
    if (token.type === 'text') {
      if (open !== null && open.text.length < MAX_TEXT * 4) open.text += token.text;
      addText(token.text);
      continue;
    }
    if (BLOCK_TAGS.has(token.name)) addText(' ');
    if (token.name === 'a') {
      finish();
      if (token.closing) continue;
      const { attrs } = token;
      const href = attrs.get('href');
      open = {
        url: href === undefined ? null : usableUrl(href),
        text: '',
        fallback: attrs.get('title') ?? '',
        image: false,
        before: clean(seen.slice(-CONTEXT_BEFORE)),
      };
      if (token.selfClosing) finish();
    } else if (token.name === 'area' && !token.closing) {
      const { attrs } = token;
      const href = attrs.get('href');
      const url = href === undefined ? null : usableUrl(href);
      if (url !== null) {
        list.add(url, clean(attrs.get('alt') ?? attrs.get('title') ?? ''), {
          imageOnly: true,
          context: '',
          source: 'html',
        });
      }
    } else if (token.name === 'img' && open !== null && !token.closing) {
      const { attrs } = token;
      open.image = true;
      if (open.fallback === '') open.fallback = attrs.get('alt') ?? attrs.get('title') ?? '';
    } else if (token.name === 'br' && open !== null) {
      open.text += ' ';
    }
  }
  finish();
  for (const w of waiting) w.link.context = clean(`${w.link.context} ${w.after.slice(0, CONTEXT_AFTER)}`);
}

/** The last sentence of `text`: what a link at its end is introduced by. */
function lastSentence(text: string): string {
  const cut = Math.max(text.lastIndexOf('. '), text.lastIndexOf('! '), text.lastIndexOf('? '));
  return clean((cut === -1 ? text : text.slice(cut + 2)).replace(/[\s:(<[-]+$/, ''));
}

/**
 * A label for a bare URL: the sentence that leads into it on its line ("Reset your password: <url>"),
 * or the last sentence of the line before when the URL stands alone.
 */
function labelFor(lines: string[], index: number, at: number): string {
  // The sentence leading into a URL is near it: a bounded slice keeps a huge line linear.
  const own = lastSentence((lines[index] as string).slice(Math.max(0, at - MAX_TEXT * 5), at));
  if (/[\p{L}\p{N}]/u.test(own)) return own;
  return lastSentence((lines[index - 1] ?? '').slice(-MAX_TEXT * 5));
}

/** Bare http(s) URLs in plain text, in order, with the sentence leading into each and the lines around it. */
export function textUrls(text: string): Array<{ url: string; label: string; context: string }> {
  const lines = text.split(/\r\n|\r|\n/);
  const out: Array<{ url: string; label: string; context: string }> = [];
  lines.forEach((line, index) => {
    for (const m of line.matchAll(/https?:\/\/[^\s<>"'`\u00a0]+/gi)) {
      const url = trimUrl(m[0]);
      if (url.length <= 'https://'.length) continue;
      // Bounded slices only: a megabyte on one line must not be copied once per URL on it.
      const before = `${(lines[index - 1] ?? '').slice(-CONTEXT_BEFORE)} ${line.slice(Math.max(0, m.index - CONTEXT_BEFORE), m.index)}`;
      const after = `${line.slice(m.index + m[0].length, m.index + m[0].length + CONTEXT_AFTER)} ${(lines[index + 1] ?? '').slice(0, CONTEXT_AFTER)}`;
      out.push({ url, label: labelFor(lines, index, m.index), context: clean(`${before} ${after}`) });
    }
  });
  return out;
}

/** Every link of a mail with its kind and the facts the primary-link choice weighs. */
export function findLinks(input: LinksInput): FoundLink[] {
  const list = new LinkList();
  const texts: string[] = [];
  if (typeof input.html === 'string' && input.html !== '') {
    htmlLinks(input.html, list);
    texts.push(htmlToPlainText(input.html));
  }
  if (typeof input.text === 'string' && input.text !== '') texts.unshift(input.text);
  // URLs shown as text but not linked, in the text part first, then in the HTML's visible text.
  for (const text of texts) {
    for (const { url, label, context } of textUrls(text)) {
      list.add(url, label, { imageOnly: false, context, source: 'text' });
    }
  }
  for (const link of list.links) link.kind = linkKind(link.url, link.text, link.context);
  return list.links;
}

export function extractLinks(input: LinksInput): ExtractedLink[] {
  return findLinks(input).map(({ url, text, kind }) => ({ url, text, kind }));
}
