// The mock reply template language (design section 5), parsed when a rule is saved so that an
// unknown name is a 400 then, never a failure while answering a request.

export type Filter = 'json' | 'url' | 'base64' | 'html';
export type Root = 'uuid' | 'now' | 'method' | 'request.id' | 'body' | 'query' | 'header' | 'path';
export type Key = string | number;

export interface Expr {
  root: Root;
  /** Keys below the root: for body any depth, for query/header/path exactly one. */
  keys: Key[];
  fallback: string | undefined;
  filters: Filter[];
  /** Sits inside a string of a JSON body: the rendered text is escaped as JSON string content. */
  inJsonString?: true;
}

export type TemplatePart = string | Expr;
export type TemplateResult = { ok: true; parts: TemplatePart[] } | { ok: false; message: string };

const FILTERS = new Set<string>(['json', 'url', 'base64', 'html']);
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const SCALAR_ROOTS = new Set(['uuid', 'now', 'method']);
const KEYED_ROOTS = new Set(['query', 'header', 'path']);
const NAMES = 'uuid, now, method, request.id, body, body.<path>, query.<name>, header.<name>, path.<name>';

class TemplateSyntaxError extends Error {}

/** A tiny cursor-based parser for the inside of one `{{ ... }}`. */
class ExprParser {
  private pos = 0;
  private readonly src: string;
  constructor(src: string) {
    this.src = src;
  }

  private fail(message: string): never {
    throw new TemplateSyntaxError(`{{${this.src}}}: ${message}`);
  }
  private skipSpace(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos] as string)) this.pos++;
  }
  private peek(): string | undefined {
    return this.src[this.pos];
  }
  private ident(): string {
    const m = /^[A-Za-z0-9_$-]+/.exec(this.src.slice(this.pos));
    if (m === null) this.fail(`expected a name at position ${this.pos + 1}`);
    this.pos += m[0].length;
    return m[0];
  }
  private quoted(): string {
    const quote = this.peek();
    if (quote !== '"' && quote !== "'") this.fail('expected a quoted string');
    this.pos++;
    let out = '';
    while (this.pos < this.src.length) {
      const c = this.src[this.pos++] as string;
      if (c === quote) return out;
      if (c === '\\') {
        const next = this.src[this.pos++];
        if (next === undefined) break;
        out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      } else out += c;
    }
    return this.fail('unterminated string');
  }
  private keys(): Key[] {
    const keys: Key[] = [];
    for (;;) {
      const c = this.peek();
      if (c === '.') {
        this.pos++;
        keys.push(this.ident());
      } else if (c === '[') {
        this.pos++;
        this.skipSpace();
        const digits = /^\d+/.exec(this.src.slice(this.pos));
        if (digits !== null) {
          this.pos += digits[0].length;
          keys.push(Number(digits[0]));
        } else keys.push(this.quoted());
        this.skipSpace();
        if (this.peek() !== ']') this.fail('expected ]');
        this.pos++;
      } else return keys;
    }
  }

  parse(): Expr {
    this.skipSpace();
    const head = this.ident();
    const keys = this.keys();
    let root: Root;
    if (SCALAR_ROOTS.has(head)) {
      if (keys.length > 0) this.fail(`${head} takes no sub-key`);
      root = head as Root;
    } else if (head === 'request') {
      if (keys.length !== 1 || keys[0] !== 'id') this.fail('the only request value is request.id');
      root = 'request.id';
      keys.length = 0;
    } else if (head === 'body') {
      root = 'body';
    } else if (KEYED_ROOTS.has(head)) {
      if (keys.length !== 1) this.fail(`${head} needs exactly one name, e.g. ${head}.id`);
      root = head as Root;
    } else {
      return this.fail(`unknown name "${head}"; known names: ${NAMES}`);
    }
    const forbidden = keys.find((k) => typeof k === 'string' && FORBIDDEN_KEYS.has(k));
    if (forbidden !== undefined) this.fail(`"${forbidden}" cannot be read`);

    this.skipSpace();
    let fallback: string | undefined;
    if (this.src.startsWith('??', this.pos)) {
      this.pos += 2;
      this.skipSpace();
      fallback = this.quoted();
      this.skipSpace();
    }
    const filters: Filter[] = [];
    while (this.peek() === '|') {
      this.pos++;
      this.skipSpace();
      const name = this.ident();
      if (!FILTERS.has(name)) this.fail(`unknown filter "${name}"; filters: json, url, base64, html`);
      filters.push(name as Filter);
      this.skipSpace();
    }
    if (this.pos < this.src.length) this.fail(`unexpected "${this.src.slice(this.pos)}"`);
    return { root, keys, fallback, filters };
  }
}

export function parseTemplate(text: string): TemplateResult {
  const parts: TemplatePart[] = [];
  let pos = 0;
  try {
    while (pos < text.length) {
      const open = text.indexOf('{{', pos);
      if (open === -1) {
        parts.push(text.slice(pos));
        break;
      }
      if (open > pos) parts.push(text.slice(pos, open));
      const close = text.indexOf('}}', open + 2);
      if (close === -1)
        throw new TemplateSyntaxError(`"{{" at position ${open + 1} is never closed with "}}"`);
      parts.push(new ExprParser(text.slice(open + 2, close)).parse());
      pos = close + 2;
    }
  } catch (err) {
    if (err instanceof TemplateSyntaxError) return { ok: false, message: err.message };
    throw err;
  }
  return { ok: true, parts };
}

/** Whether a Content-Type value names JSON: `application/json` or any `+json` type, parameters aside. */
export function isJsonMediaType(value: string): boolean {
  const type = (value.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || (type.includes('/') && type.endsWith('+json'));
}

/**
 * Whether a rule's body is JSON: its Content-Type says so, or it sets none and the body opens with `{` or
 * `[` (the reply then goes out as JSON when it parses, design section 5).
 */
export function isJsonBody(headers: Record<string, string>, body: string): boolean {
  const type = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type');
  if (type !== undefined) return isJsonMediaType(type[1]);
  const start = body.trimStart();
  return start.startsWith('[') || (start.startsWith('{') && !start.startsWith('{{'));
}

/**
 * The parts of a JSON body template with every expression that sits inside a string literal marked, so that
 * a `"`, `\` or newline in the value cannot end the string: `{"id":"{{path.id}}"}` stays JSON whatever the
 * id. An expression outside a string (a whole value, `{{body.x|json}}`) is left as it is.
 */
export function markJsonStrings(parts: TemplatePart[]): TemplatePart[] {
  let inString = false;
  let escaped = false;
  return parts.map((part) => {
    if (typeof part !== 'string') {
      // The inserted text is escaped whole: nothing it contains carries over to the literal after it.
      escaped = false;
      return inString ? { ...part, inJsonString: true } : part;
    }
    for (const c of part) {
      if (escaped) escaped = false;
      else if (inString && c === '\\') escaped = true;
      else if (c === '"') inString = !inString;
    }
    return part;
  });
}
