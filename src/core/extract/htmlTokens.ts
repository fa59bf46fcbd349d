// A forgiving, linear-time HTML tokenizer for mail bodies: text runs and tags with their attributes.
// Mail HTML is often broken, so nothing here throws and every scan moves strictly forward.

export type HtmlToken =
  | { type: 'text'; text: string }
  | { type: 'tag'; name: string; closing: boolean; selfClosing: boolean; attrs: string };

/** Elements whose content is not visible text. */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'noscript', 'xml']);

function isNameChar(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '-' || c === ':';
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
}

export function* htmlTokens(html: string): Generator<HtmlToken> {
  let i = 0;
  // Once an unbalanced quote sent a scan to the end, later tags are cut at the next '>' instead, so a
  // body full of stray quotes cannot make every tag rescan the rest of the input.
  let quotesBroken = false;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      yield { type: 'text', text: html.slice(i) };
      return;
    }
    if (lt > i) yield { type: 'text', text: html.slice(i, lt) };
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end === -1 ? html.length : end + 3;
      continue;
    }
    const next = html[lt + 1] ?? '';
    if (next === '!' || next === '?') {
      const end = html.indexOf('>', lt);
      i = end === -1 ? html.length : end + 1;
      continue;
    }
    const closing = next === '/';
    let j = closing ? lt + 2 : lt + 1;
    const nameStart = j;
    while (j < html.length && isNameChar(html[j] as string)) j++;
    if (j === nameStart) {
      // A bare '<' (as in "a < b") is text.
      yield { type: 'text', text: '<' };
      i = lt + 1;
      continue;
    }
    const name = html.slice(nameStart, j).toLowerCase();
    const end = quotesBroken ? html.indexOf('>', j) : tagEnd(html, j);
    let close = end;
    if (end === -1) {
      quotesBroken = true;
      close = html.indexOf('>', j);
      if (close === -1) return;
    }
    const inner = html.slice(j, close);
    const selfClosing = inner.endsWith('/');
    yield { type: 'tag', name, closing, selfClosing, attrs: selfClosing ? inner.slice(0, -1) : inner };
    i = close + 1;
    if (!closing && !selfClosing && RAW_TEXT.has(name)) i = rawTextEnd(html, i, name);
  }
}

/** Index of the '>' closing a tag, skipping quoted attribute values; -1 when a quote never closes. */
function tagEnd(html: string, from: number): number {
  let quote = '';
  for (let k = from; k < html.length; k++) {
    const c = html[k] as string;
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      // Quotes only open a value right after '='; elsewhere they are junk some templates leave behind.
      let p = k - 1;
      while (p >= from && isSpace(html[p])) p--;
      if (html[p] === '=') quote = c;
    } else if (c === '>') {
      return k;
    }
  }
  return -1;
}

/** Skips to just after `</name>`; the content of script/style never becomes text. */
function rawTextEnd(html: string, from: number, name: string): number {
  const closer = new RegExp(`</${name}[\\s>]`, 'gi');
  closer.lastIndex = from;
  const m = closer.exec(html);
  if (m === null) return html.length;
  const gt = html.indexOf('>', m.index);
  return gt === -1 ? html.length : gt + 1;
}

/** Attributes of one tag, lower-cased names, values as written (entities still encoded). */
export function parseAttributes(attrs: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  const n = attrs.length;
  while (i < n) {
    while (i < n && (isSpace(attrs[i]) || attrs[i] === '/')) i++;
    const start = i;
    while (i < n && !isSpace(attrs[i]) && attrs[i] !== '=' && attrs[i] !== '/') i++;
    if (i === start) {
      i++;
      continue;
    }
    const name = attrs.slice(start, i).toLowerCase();
    while (i < n && isSpace(attrs[i])) i++;
    let value = '';
    if (attrs[i] === '=') {
      i++;
      while (i < n && isSpace(attrs[i])) i++;
      const q = attrs[i];
      if (q === '"' || q === "'") {
        const end = attrs.indexOf(q, i + 1);
        value = attrs.slice(i + 1, end === -1 ? n : end);
        i = end === -1 ? n : end + 1;
      } else {
        const vStart = i;
        while (i < n && !isSpace(attrs[i])) i++;
        value = attrs.slice(vStart, i);
      }
    }
    if (!out.has(name)) out.set(name, value);
  }
  return out;
}
