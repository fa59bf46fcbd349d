// Reading OAuth parameters from a query or form: each at most once (RFC 6749 §3.1), strings only.
import type { OAuthErrorCode, OAuthRefusal } from './types.ts';

export type Params = Record<string, unknown>;

export function refusal(error: OAuthErrorCode, description: string, status: 400 | 401 = 400): OAuthRefusal {
  return { ok: false, error, description, status };
}

/** The parameter's value (undefined when absent or empty), or a refusal when it was sent twice or not as text. */
export function param(params: Params, name: string): { ok: true; value: string | undefined } | OAuthRefusal {
  const raw = params[name];
  if (raw === undefined || raw === null || raw === '') return { ok: true, value: undefined };
  if (Array.isArray(raw)) return refusal('invalid_request', `The parameter ${name} was sent more than once.`);
  if (typeof raw !== 'string') return refusal('invalid_request', `The parameter ${name} must be a string.`);
  return { ok: true, value: raw };
}

/** Reads several parameters at once; the first refusal wins. */
export function params<const N extends string>(
  source: Params,
  names: readonly N[],
): { ok: true; values: Record<N, string | undefined> } | OAuthRefusal {
  const values = {} as Record<N, string | undefined>;
  for (const name of names) {
    const read = param(source, name);
    if (!read.ok) return read;
    values[name] = read.value;
  }
  return { ok: true, values };
}
