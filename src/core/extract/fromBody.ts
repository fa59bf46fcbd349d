// Pulls values out of a captured email or HTTP request for the extract_from_body tool: links, RE2 regex
// matches, a JSONPath subset, header values, or the whole text.
import type { NameValue } from '../store/schema.ts';
import { evaluateJsonPath, parseJsonPath } from './jsonPath.ts';
import { htmlToPlainText } from './lines.ts';
import type { LinkKind } from './linkKind.ts';
import { extractLinks } from './links.ts';
import { compileRe2, findAll, inputError, snippet } from './re2.ts';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '../http/views.ts';

export type ExtractMode = 'links' | 'regex' | 'json_path' | 'header' | 'text';
export type EmailPart = 'text' | 'html' | 'subject';

export interface EmailItem {
  kind: 'email';
  subject?: string | null;
  text?: string | null;
  html?: string | null;
  headers?: NameValue[];
}

export interface RequestItem {
  kind: 'request';
  /** The body as text; null when empty or not text. */
  body?: string | null;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  headers?: NameValue[];
  form?: NameValue[];
}

export type ExtractItem = EmailItem | RequestItem;

export interface ExtractOptions {
  mode: ExtractMode;
  /** regex: an RE2 expression; json_path: a path; header: the header name. */
  pattern?: string;
  /** Which part of an email to read; ignored for requests. */
  part?: EmailPart;
}

export interface BodyMatch {
  value: string;
  /** regex: the text around the match; json_path: the match's path; header: the header name as sent; links: the anchor text. */
  context: string | null;
  /** links only. */
  kind?: LinkKind;
}

export interface BodyResult {
  status: 'found' | 'not_found';
  matches: BodyMatch[];
}

export const MAX_MATCHES = 100;
const MODES: readonly ExtractMode[] = ['links', 'regex', 'json_path', 'header', 'text'];
const PARTS: readonly EmailPart[] = ['text', 'html', 'subject'];

const present = (s: string | null | undefined): s is string => typeof s === 'string' && s !== '';

/**
 * The text a mode reads from an email. An explicit "html" part is the HTML source (so a regex can read
 * hrefs); without a part, the text part is used, or the HTML's visible text when there is none.
 */
function emailText(item: EmailItem, part: EmailPart | undefined): string | null {
  if (part === 'subject') return item.subject ?? null;
  if (part === 'html') return item.html ?? null;
  if (part === 'text') return item.text ?? null;
  if (present(item.text)) return item.text;
  return present(item.html) ? htmlToPlainText(item.html) : null;
}

function itemText(item: ExtractItem, part: EmailPart | undefined): string | null {
  const text = item.kind === 'email' ? emailText(item, part) : (item.body ?? null);
  return present(text) ? text : null;
}

function requirePattern(mode: ExtractMode, pattern: string | undefined, example: string): string {
  if (pattern === undefined || pattern.trim() === '') {
    throw inputError('pattern', `mode "${mode}" needs a pattern, e.g. ${example}.`);
  }
  return pattern;
}

function parseJson(text: string | null): unknown {
  // The same depth bound as every parsed view: past it the text is not JSON to extraction either.
  if (text === null || jsonDeeperThan(text, MAX_JSON_DEPTH)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Form fields as an object so a path like $.email works on form posts; repeated names become arrays. */
function formObject(form: NameValue[]): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const { name, value } of form) {
    const existing = out[name];
    out[name] =
      existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

function jsonOf(item: ExtractItem, part: EmailPart | undefined): unknown {
  if (item.kind === 'email') return parseJson(emailText(item, part));
  if (item.json !== undefined && item.json !== null) return item.json;
  const parsed = parseJson(item.body ?? null);
  if (parsed !== undefined) return parsed;
  return item.form !== undefined && item.form.length > 0 ? formObject(item.form) : undefined;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    // Only a value nested thousands of levels deep gets here: JSON.parse accepts more than stringify can write.
    return '[too deeply nested to show]';
  }
}

function links(item: ExtractItem, part: EmailPart | undefined): BodyMatch[] {
  let found;
  if (item.kind === 'email') {
    const html = part === undefined || part === 'html' ? item.html : null;
    const text = part === undefined || part === 'text' ? item.text : part === 'subject' ? item.subject : null;
    found = extractLinks({ text, html });
  } else {
    const body = item.body ?? '';
    // JSON encoders may escape "/" as "\/"; unescape so URLs inside JSON strings are seen.
    const text = body.includes('\\/') ? body.replaceAll('\\/', '/') : body;
    found = extractLinks({ text, html: /<a\s|<area\s/i.test(body) ? body : null });
  }
  return found
    .slice(0, MAX_MATCHES)
    .map((l) => ({ value: l.url, context: l.text === '' ? null : l.text, kind: l.kind }));
}

function headerValues(item: ExtractItem, name: string): BodyMatch[] {
  const wanted = name.trim().toLowerCase();
  return (item.headers ?? [])
    .filter((h) => h.name.toLowerCase() === wanted)
    .slice(0, MAX_MATCHES)
    .map((h) => ({ value: h.value, context: h.name }));
}

function matchesFor(item: ExtractItem, options: ExtractOptions): BodyMatch[] {
  const part = item.kind === 'email' ? options.part : undefined;
  switch (options.mode) {
    case 'links':
      return links(item, part);
    case 'header':
      return headerValues(item, requirePattern('header', options.pattern, '"X-Signature"'));
    case 'text': {
      const text = itemText(item, part);
      return text === null ? [] : [{ value: text, context: null }];
    }
    case 'regex': {
      const re = compileRe2(requirePattern('regex', options.pattern, '"token=([A-Za-z0-9]+)"'));
      const text = itemText(item, part);
      if (text === null) return [];
      return findAll(re, text, MAX_MATCHES).map((m) => ({
        value: m.value,
        context: snippet(text, m.start, m.end),
      }));
    }
    case 'json_path': {
      const segments = parseJsonPath(requirePattern('json_path', options.pattern, '"$.data.token"'));
      const json = jsonOf(item, part);
      if (json === undefined) return [];
      return evaluateJsonPath(json, segments, MAX_MATCHES).map((m) => ({
        value: stringify(m.value),
        context: m.path,
      }));
    }
  }
}

export function extractFromBody(item: ExtractItem, options: ExtractOptions): BodyResult {
  if (!MODES.includes(options.mode)) {
    throw inputError('mode', `mode "${String(options.mode)}" is unknown; use one of ${MODES.join(', ')}.`);
  }
  if (options.part !== undefined && !PARTS.includes(options.part)) {
    throw inputError('part', `part "${String(options.part)}" is unknown; use one of ${PARTS.join(', ')}.`);
  }
  const matches = matchesFor(item, options);
  return { status: matches.length > 0 ? 'found' : 'not_found', matches };
}
