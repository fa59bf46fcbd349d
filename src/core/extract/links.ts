// Lists the links of an email: anchors and image-map areas of the HTML part, and bare URLs of the
// text part, de-duplicated, each with its anchor text and kind. Links are never fetched.
import { decodeEntities } from './entities.ts';
import { htmlTokens, parseAttributes } from './htmlTokens.ts';
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
  const url = decodeEntities(href)
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

class LinkList {
  readonly links: ExtractedLink[] = [];
  private readonly byUrl = new Map<string, ExtractedLink>();

  add(url: string, text: string): void {
    const existing = this.byUrl.get(url);
    if (existing !== undefined) {
      // First occurrence keeps its place; a more telling label replaces a generic or missing one.
      if (betterText(text, existing.text)) {
        existing.text = text;
        existing.kind = linkKind(url, text);
      }
      return;
    }
    if (this.links.length >= MAX_LINKS) return;
    const link = { url, text, kind: linkKind(url, text) };
    this.byUrl.set(url, link);
    this.links.push(link);
  }
}

function betterText(candidate: string, current: string): boolean {
  if (candidate === '' || candidate === current) return false;
  if (current === '' || /^https?:\/\//i.test(current)) return true;
  return GENERIC_TEXT.test(current) && !GENERIC_TEXT.test(candidate);
}

function htmlLinks(html: string, list: LinkList): void {
  let open: { url: string | null; text: string; fallback: string } | null = null;
  const finish = (): void => {
    if (open?.url) list.add(open.url, clean(open.text) || clean(open.fallback));
    open = null;
  };
  for (const token of htmlTokens(html)) {
    if (token.type === 'text') {
      if (open !== null && open.text.length < MAX_TEXT * 4) open.text += token.text;
      continue;
    }
    if (token.name === 'a') {
      finish();
      if (token.closing) continue;
      const attrs = parseAttributes(token.attrs);
      const href = attrs.get('href');
      open = {
        url: href === undefined ? null : usableUrl(href),
        text: '',
        fallback: attrs.get('title') ?? '',
      };
      if (token.selfClosing) finish();
    } else if (token.name === 'area' && !token.closing) {
      const attrs = parseAttributes(token.attrs);
      const href = attrs.get('href');
      const url = href === undefined ? null : usableUrl(href);
      if (url !== null) list.add(url, clean(attrs.get('alt') ?? attrs.get('title') ?? ''));
    } else if (token.name === 'img' && open !== null && !token.closing) {
      const attrs = parseAttributes(token.attrs);
      if (open.fallback === '') open.fallback = attrs.get('alt') ?? attrs.get('title') ?? '';
    } else if (token.name === 'br' && open !== null) {
      open.text += ' ';
    }
  }
  finish();
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
  const own = lastSentence((lines[index] as string).slice(0, at));
  if (/[\p{L}\p{N}]/u.test(own)) return own;
  return lastSentence(lines[index - 1] ?? '');
}

/** Bare http(s) URLs in plain text, in order. */
export function textUrls(text: string): Array<{ url: string; label: string }> {
  const lines = text.split(/\r\n|\r|\n/);
  const out: Array<{ url: string; label: string }> = [];
  lines.forEach((line, index) => {
    for (const m of line.matchAll(/https?:\/\/[^\s<>"'`\u00a0]+/gi)) {
      const url = trimUrl(m[0]);
      if (url.length > 'https://'.length) out.push({ url, label: labelFor(lines, index, m.index) });
    }
  });
  return out;
}

export function extractLinks(input: LinksInput): ExtractedLink[] {
  const list = new LinkList();
  const texts: string[] = [];
  if (typeof input.html === 'string' && input.html !== '') {
    htmlLinks(input.html, list);
    texts.push(htmlToPlainText(input.html));
  }
  if (typeof input.text === 'string' && input.text !== '') texts.unshift(input.text);
  // URLs shown as text but not linked, in the text part first, then in the HTML's visible text.
  for (const text of texts) {
    for (const { url, label } of textUrls(text)) list.add(url, label);
  }
  return list.links;
}
