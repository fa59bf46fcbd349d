// Mock rules as the editor holds them (text fields) and as the API takes them, and API error paths mapped to fields.
import type { MockRule, MockRuleInput } from '../../api.ts';

export interface RuleDraft {
  /** Stable key for rendering while rules move; not sent. */
  key: string;
  id: string | null;
  name: string;
  method: string;
  pattern: string;
  status: string;
  headers: string;
  body: string;
  isFallback: boolean;
  /**
   * Fields of the stored rule this editor does not edit (ones the API adds later, such as a delay or a
   * scenario), sent back unchanged so saving here never drops them.
   */
  extra: Record<string, unknown>;
}

/** The HTTP methods offered; an empty method means any. */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** The spellings of "any method" the API accepts; the editor shows them all as Any (''). */
const ANY_METHOD = new Set(['', '*', 'ANY']);

export type RuleField = 'name' | 'method' | 'pattern' | 'status' | 'headers' | 'body' | 'isFallback';

let counter = 0;
function nextKey(): string {
  counter += 1;
  return `rule-${counter}`;
}

export function toDraft(rule: MockRule): RuleDraft {
  const { id, name, method, pattern, statusCode, headers, body, isFallback, ...extra } = rule;
  return {
    key: nextKey(),
    id,
    name,
    method: ANY_METHOD.has(method.trim().toUpperCase()) ? '' : method,
    pattern,
    status: String(statusCode),
    headers: Object.entries(headers)
      .map(([header, value]) => `${header}: ${value}`)
      .join('\n'),
    body: body ?? '',
    isFallback,
    extra: extra as Record<string, unknown>,
  };
}

export function emptyDraft(): RuleDraft {
  return {
    key: nextKey(),
    id: null,
    name: '',
    method: 'GET',
    pattern: '/',
    status: '200',
    headers: '',
    body: '',
    isFallback: false,
    extra: {},
  };
}

/** Errors keyed by `${ruleIndex}.${field}`, plus the ones naming no field of a rule. */
export interface FieldErrors {
  fields: Map<string, string>;
  general: string[];
}

export function fieldKey(index: number, field: RuleField): string {
  return `${index}.${field}`;
}

/** Parses "Name: value" lines; a line without a colon is an error the API never sees. */
export function parseHeaders(text: string): { headers: Record<string, string> } | { error: string } {
  const headers: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!.trim();
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return { error: `Line ${i + 1} ("${line}") is not "Name: value".` };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}

/** The drafts as the API's rule list, or the errors found before sending (headers lines, status not a number). */
export function toInputs(drafts: RuleDraft[]): { mocks: MockRuleInput[] } | { errors: FieldErrors } {
  const errors: FieldErrors = { fields: new Map(), general: [] };
  const mocks = drafts.map((draft, index): MockRuleInput => {
    const headers = parseHeaders(draft.headers);
    if ('error' in headers) errors.fields.set(fieldKey(index, 'headers'), headers.error);
    const status = Number(draft.status.trim());
    if (!/^\d+$/.test(draft.status.trim())) {
      errors.fields.set(fieldKey(index, 'status'), 'Write the status as a number such as 200 or 404.');
    }
    // The editor's fields win over anything of the same name in `extra`.
    return {
      ...draft.extra,
      ...(draft.id ? { id: draft.id } : {}),
      name: draft.name,
      method: draft.method.trim(),
      pattern: draft.pattern.trim(),
      statusCode: status,
      headers: 'headers' in headers ? headers.headers : {},
      body: draft.body === '' ? null : draft.body,
      isFallback: draft.isFallback,
    } as MockRuleInput;
  });
  return errors.fields.size > 0 ? { errors } : { mocks };
}

const FIELD_OF: Record<string, RuleField> = {
  name: 'name',
  method: 'method',
  pattern: 'pattern',
  statusCode: 'status',
  headers: 'headers',
  body: 'body',
  isFallback: 'isFallback',
};

/** Maps the API's `errors[].path` (`mocks[1].pattern`, `mocks[0].headers.X-A`) onto the editor's fields. */
export function mapApiErrors(
  errors: { path: string; message: string }[] | undefined,
  detail: string,
): FieldErrors {
  const result: FieldErrors = { fields: new Map(), general: [] };
  for (const error of errors ?? []) {
    const match = /^mocks\[(\d+)\](?:\.(\w+))?/.exec(error.path);
    const field = match?.[2] ? FIELD_OF[match[2]] : undefined;
    if (match && field) {
      const key = fieldKey(Number(match[1]), field);
      const previous = result.fields.get(key);
      result.fields.set(key, previous ? `${previous} ${error.message}` : error.message);
    } else if (match) {
      result.general.push(`Rule ${Number(match[1]) + 1}: ${error.message}`);
    } else {
      result.general.push(error.path ? `${error.path}: ${error.message}` : error.message);
    }
  }
  if (result.fields.size === 0 && result.general.length === 0) result.general.push(detail);
  return result;
}
