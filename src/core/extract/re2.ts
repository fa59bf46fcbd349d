// Compiles caller-supplied regular expressions with RE2 (linear time, no catastrophic backtracking) and
// turns syntax errors into invalid_input errors that say how to fix the expression.
import { RE2JS } from 're2js';
import { AppError } from '../errors.ts';

const MAX_PATTERN_LENGTH = 2000;

export function inputError(field: string, message: string): AppError {
  return new AppError('invalid_input', message, { errors: [{ path: field, message }] });
}

export function compileRe2(pattern: string, field = 'pattern'): RE2JS {
  if (pattern === '') {
    throw inputError(field, `${field} is empty: give an RE2 regular expression, e.g. "code: ([0-9]{6})".`);
  }
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw inputError(
      field,
      `${field} is longer than ${MAX_PATTERN_LENGTH} characters: shorten the expression.`,
    );
  }
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    throw inputError(
      field,
      `${field} is not a valid RE2 regular expression (${(err as Error).message}). RE2 has no lookahead, ` +
        'lookbehind or backreferences; escape literal characters such as ( [ . ? with a backslash.',
    );
  }
}

export interface RegexMatch {
  /** Group 1 when the expression has groups, else the whole match. */
  value: string;
  start: number;
  end: number;
}

/** Non-empty matches in order, at most `limit`; a group that did not take part skips its match. */
export function findAll(re: RE2JS, text: string, limit: number): RegexMatch[] {
  const out: RegexMatch[] = [];
  const useGroup = re.groupCount() > 0;
  const m = re.matcher(text);
  while (out.length < limit && m.find()) {
    const value = m.group(useGroup ? 1 : 0);
    if (value === null || value === '') continue;
    out.push({ value, start: m.start(useGroup ? 1 : 0), end: m.end(useGroup ? 1 : 0) });
  }
  return out;
}

/** About `radius` characters either side of [start, end), on one line, with ellipses where cut. */
export function snippet(text: string, start: number, end: number, radius = 40): string {
  const from = Math.max(0, start - radius);
  const to = Math.min(text.length, end + radius);
  const body = text.slice(from, to).replace(/\s+/g, ' ').trim();
  return `${from > 0 ? '…' : ''}${body}${to < text.length ? '…' : ''}`;
}
