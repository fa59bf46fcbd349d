// Checks a rule's callbacks when the rules are saved: method, URL template (its origin must be written out, so
// the target policy can judge it now), header and body templates, and the signing; then, asynchronously, that
// each origin is a target the webhook policy allows.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { invalidInput, type FieldError } from '../errors.ts';
import type { MockCallbackInput } from '../schemas.ts';
import { urlRefusal, vetTarget, type TargetPolicy } from '../webhooks/targets.ts';
import { parseTemplate } from './template.ts';
import type { CallbackSigning, MockCallback, StoredMockRule } from './types.ts';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Set by the sender: a callback cannot frame its own request or forge the signature headers. */
const RESERVED = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'host',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

/** The literal start of a URL template up to its first `{{`: it must hold the whole origin. */
export function callbackOrigin(url: string): string | undefined {
  const literal = url.split('{{', 1)[0] as string;
  const m = /^(https?:\/\/[^/?#]+)(?:[/?#]|$)/i.exec(literal);
  if (m === null) return undefined;
  // A template right after the host (`http://host{{path.x}}`) could still change the port or host.
  if (literal === m[1] && url.length > literal.length) return undefined;
  return m[1];
}

function checkSigning(
  input: NonNullable<MockCallbackInput['signing']>,
  at: string,
  errors: FieldError[],
): CallbackSigning | undefined {
  const scheme = input.scheme.trim().toLowerCase();
  if (scheme === 'standard-webhooks') {
    const secret = input.secret ?? `whsec_${randomBytes(24).toString('base64')}`;
    try {
      new Webhook(secret);
    } catch {
      errors.push({
        path: `${at}.secret`,
        message: 'must be a Standard Webhooks secret: whsec_ then base64',
      });
      return undefined;
    }
    for (const field of ['header', 'encoding', 'prefix'] as const) {
      if (input[field] != null)
        errors.push({ path: `${at}.${field}`, message: 'only the hmac-sha256 scheme takes it' });
    }
    return { scheme, secret };
  }
  if (scheme === 'hmac-sha256') {
    if (input.secret == null || input.secret === '') {
      errors.push({ path: `${at}.secret`, message: 'the hmac-sha256 scheme needs the shared secret' });
      return undefined;
    }
    const header = input.header ?? 'X-Signature';
    if (!TOKEN.test(header)) errors.push({ path: `${at}.header`, message: 'is not a valid header name' });
    return {
      scheme,
      secret: input.secret,
      header,
      encoding: input.encoding ?? 'hex',
      prefix: input.prefix ?? '',
    };
  }
  errors.push({
    path: `${at}.scheme`,
    message: `unknown signing scheme "${input.scheme}"; schemes: standard-webhooks, hmac-sha256`,
  });
  return undefined;
}

function checkCallback(input: MockCallbackInput, at: string, errors: FieldError[]): MockCallback | undefined {
  const before = errors.length;
  const method = (input.method ?? 'POST').trim().toUpperCase();
  if (!TOKEN.test(method) || method === 'ANY') {
    errors.push({ path: `${at}.method`, message: 'must be an HTTP method such as POST' });
  }
  const url = input.url.trim();
  const parsedUrl = parseTemplate(url);
  const origin = callbackOrigin(url);
  if (!parsedUrl.ok) errors.push({ path: `${at}.url`, message: parsedUrl.message });
  else if (origin === undefined) {
    errors.push({
      path: `${at}.url`,
      message:
        'must start with a written-out http(s)://host[:port]/; templates may follow in the path and query',
    });
  } else {
    const bad = urlRefusal(`${origin}/`);
    if (bad !== undefined) errors.push({ path: `${at}.url`, message: bad });
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    const path = `${at}.headers.${name}`;
    if (!TOKEN.test(name)) errors.push({ path, message: 'is not a valid header name' });
    else if (RESERVED.has(name.toLowerCase())) errors.push({ path, message: 'is set by the sender' });
    if (/[\r\n\0]/.test(value)) errors.push({ path, message: 'a header value cannot contain CR, LF or NUL' });
    const parsed = parseTemplate(value);
    if (!parsed.ok) errors.push({ path, message: parsed.message });
    headers[name] = value;
  }
  const body = input.body ?? null;
  if (body !== null) {
    const parsed = parseTemplate(body);
    if (!parsed.ok) errors.push({ path: `${at}.body`, message: parsed.message });
  }
  const signing =
    input.signing == null ? null : (checkSigning(input.signing, `${at}.signing`, errors) ?? null);
  if (errors.length > before) return undefined;
  return { delayMs: input.delayMs ?? 0, method, url, headers, body, signing };
}

export function checkCallbacks(
  inputs: MockCallbackInput[],
  at: string,
  errors: FieldError[],
): MockCallback[] {
  const out: MockCallback[] = [];
  inputs.forEach((input, i) => {
    const checked = checkCallback(input, `${at}[${i}]`, errors);
    if (checked !== undefined) out.push(checked);
  });
  return out;
}

/**
 * Every callback's origin judged by the webhook target policy (WEBHOOK_TARGETS, or the default rule), as a
 * webhook URL is when created; the sender judges the rendered URL again before each attempt.
 */
export async function vetCallbackTargets(rules: StoredMockRule[], policy: TargetPolicy): Promise<void> {
  const errors: FieldError[] = [];
  for (const [i, rule] of rules.entries()) {
    for (const [j, callback] of (rule.callbacks ?? []).entries()) {
      const origin = callbackOrigin(callback.url) as string;
      const vetted = await vetTarget(`${origin}/`, policy);
      if (!vetted.ok) errors.push({ path: `mocks[${i}].callbacks[${j}].url`, message: vetted.reason });
    }
  }
  if (errors.length > 0) {
    throw invalidInput('A callback URL is outside the webhook target policy; nothing was changed.', errors);
  }
}
