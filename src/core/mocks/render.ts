// Renders a parsed reply template against one captured request. Inserted values are never re-scanned for
// `{{`, and only own properties are walked, so request data cannot reach prototypes or inject templates.
import { randomUUID } from 'node:crypto';
import type { Expr, Filter, TemplatePart } from './template.ts';

export interface TemplateContext {
  requestId: string;
  /** One instant per request: every {{now}} of a reply renders the same value. */
  now: string;
  method: string;
  bodyText: string;
  /** The body as JSON, or its form fields; undefined when it is neither. */
  bodyValue: () => unknown;
  query: (name: string) => string | undefined;
  header: (name: string) => string | undefined;
  path: Record<string, string>;
}

const MISSING = Symbol('missing');

function walk(value: unknown, keys: Array<string | number>): unknown {
  let current: unknown = value;
  for (const key of keys) {
    if (current === null || typeof current !== 'object') return MISSING;
    if (Array.isArray(current)) {
      if (typeof key !== 'number') return MISSING;
      current = key < current.length ? current[key] : MISSING;
    } else {
      const k = String(key);
      if (!Object.hasOwn(current, k)) return MISSING;
      current = (current as Record<string, unknown>)[k];
    }
    if (current === MISSING) return MISSING;
  }
  return current;
}

function lookup(expr: Expr, ctx: TemplateContext): unknown {
  const key = expr.keys[0];
  switch (expr.root) {
    case 'uuid':
      return randomUUID();
    case 'now':
      return ctx.now;
    case 'method':
      return ctx.method;
    case 'request.id':
      return ctx.requestId;
    case 'body':
      return expr.keys.length === 0 ? ctx.bodyText : walk(ctx.bodyValue(), expr.keys);
    case 'query':
      return ctx.query(String(key)) ?? MISSING;
    case 'header':
      return ctx.header(String(key)) ?? MISSING;
    case 'path':
      return Object.hasOwn(ctx.path, String(key)) ? ctx.path[String(key)] : MISSING;
  }
}

function asText(value: unknown): string {
  if (value === MISSING || value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function applyFilter(filter: Filter, value: unknown): string {
  switch (filter) {
    case 'json':
      return JSON.stringify(value === MISSING || value === undefined ? null : value);
    case 'url':
      return encodeURIComponent(asText(value));
    case 'base64':
      return Buffer.from(asText(value), 'utf8').toString('base64');
    case 'html':
      return asText(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
  }
}

function renderExpr(expr: Expr, ctx: TemplateContext): string {
  let value = lookup(expr, ctx);
  if ((value === MISSING || value === null || value === undefined) && expr.fallback !== undefined) {
    value = expr.fallback;
  }
  let out: string;
  if (expr.filters.length === 0) out = asText(value);
  else {
    let filtered: unknown = value;
    for (const filter of expr.filters) filtered = applyFilter(filter, filtered);
    out = filtered as string;
  }
  // Inside a string of a JSON body the text goes in as string content, so the document stays JSON.
  return expr.inJsonString === true ? JSON.stringify(out).slice(1, -1) : out;
}

/** Renders `parts`; `maxLength` bounds the output (in UTF-16 units) so a reply cannot balloon. */
export function renderTemplate(parts: TemplatePart[], ctx: TemplateContext, maxLength = Infinity): string {
  let out = '';
  for (const part of parts) {
    out += typeof part === 'string' ? part : renderExpr(part, ctx);
    if (out.length > maxLength) throw new RenderLimitError();
  }
  return out;
}

export class RenderLimitError extends Error {
  override name = 'RenderLimitError';
}
