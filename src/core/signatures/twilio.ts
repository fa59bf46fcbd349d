// Twilio: `X-Twilio-Signature: <base64>`, an HMAC of the full URL Twilio called followed by each POST form
// parameter as name+value, names sorted (repeated names: distinct values sorted), keyed with the auth token.
// HMAC-SHA1 unless X-Twilio-Webhooks-Signature-Settings says algorithm=HMAC_SHA256. A URL carrying
// `bodySHA256` (JSON bodies) signs the URL alone and the body by its SHA-256 hex in that parameter. As
// twilio-node does, the URL is tried as given and with the default port added or removed, then normalised.
import { createHash } from 'node:crypto';
import {
  headerValue,
  hmac,
  refused,
  sameBytes,
  count,
  type ProviderCheck,
  type SignatureRequest,
} from './common.ts';

const HEADER = 'X-Twilio-Signature';
const SETTINGS = 'X-Twilio-Webhooks-Signature-Settings';

/** The URL's parts without normalising it (twilio-node's splitUrl), so the signed characters stay as sent. */
function splitUrl(url: string) {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url);
  if (match === null) return undefined;
  const [prefix = '', scheme = '', authority = ''] = match;
  const at = authority.lastIndexOf('@');
  const hostAndPort = authority.slice(at + 1);
  const portStart = hostAndPort.indexOf(':', hostAndPort.lastIndexOf(']') + 1);
  return {
    scheme,
    userInfo: authority.slice(0, at + 1),
    host: portStart === -1 ? hostAndPort : hostAndPort.slice(0, portStart),
    port: portStart === -1 ? '' : hostAndPort.slice(portStart),
    rest: url.slice(prefix.length),
  };
}

function withPort(url: string): string {
  const p = splitUrl(url);
  if (p === undefined || p.port !== '') return url;
  return `${p.scheme}${p.userInfo}${p.host}${p.scheme.toLowerCase() === 'https://' ? ':443' : ':80'}${p.rest}`;
}

function withoutPort(url: string): string {
  const p = splitUrl(url);
  return p === undefined ? url : `${p.scheme}${p.userInfo}${p.host}${p.rest}`;
}

function candidates(url: string): string[] {
  const out = [url, withoutPort(url), withPort(url)];
  if (URL.canParse(url)) {
    const normal = new URL(url).toString();
    out.push(withoutPort(normal), withPort(normal));
  }
  return [...new Set(out)];
}

/** The form parameters as Twilio concatenates them: sorted names, each with its distinct values sorted. */
function paramString(headers: SignatureRequest['headers'], body: Buffer): string {
  const type = headerValue(headers, 'content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type.trim())) return '';
  const grouped = new Map<string, Set<string>>();
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    const values = grouped.get(name) ?? new Set<string>();
    values.add(value);
    grouped.set(name, values);
  }
  return [...grouped.keys()]
    .sort()
    .map((name) =>
      [...(grouped.get(name) ?? [])]
        .sort()
        .map((v) => name + v)
        .join(''),
    )
    .join('');
}

export function verifyTwilio(req: SignatureRequest): ProviderCheck {
  const settings = headerValue(req.headers, SETTINGS) ?? '';
  const declared = /(?:^|,)\s*algorithm=([^,]*)/.exec(settings)?.[1]?.trim().toUpperCase() || 'HMAC_SHA1';
  const url = req.options.url ?? '';
  const checked = {
    header: HEADER,
    signatures: 0,
    signedContent: '{url}{sorted form params}',
    bodyBytes: req.body.length,
    algorithm: declared === 'HMAC_SHA256' ? 'HMAC-SHA256' : 'HMAC-SHA1',
    url,
  };
  const value = headerValue(req.headers, HEADER)?.trim();
  if (value === undefined) return refused('missing_header', `The ${HEADER} header is missing.`, checked);
  if (declared !== 'HMAC_SHA1' && declared !== 'HMAC_SHA256') {
    return refused('malformed_header', `${SETTINGS} names an unknown algorithm ${declared}.`, checked);
  }
  const algorithm = declared === 'HMAC_SHA256' ? 'sha256' : 'sha1';
  const bodyHash = URL.canParse(url) ? new URL(url).searchParams.get('bodySHA256') : null;
  const params = bodyHash === null ? paramString(req.headers, req.body) : '';
  const full = {
    ...checked,
    signatures: 1,
    signedContent: bodyHash === null ? checked.signedContent : '{url} (body by its bodySHA256)',
  };
  const given = Buffer.from(value);
  const matchedUrl = candidates(url).find((candidate) =>
    sameBytes(given, Buffer.from(hmac(algorithm, req.secret, candidate, params).toString('base64'))),
  );
  if (matchedUrl === undefined) {
    return {
      valid: false,
      failure: 'mismatch',
      reason:
        `${HEADER} does not match ${full.algorithm} over ${url} plus the ${bodyHash === null ? 'sorted form parameters' : 'empty parameter list'} ` +
        'with this auth token: the token is wrong, the body was changed, or Twilio called another URL ' +
        '(a tunnel or proxy in front of the app): pass the URL configured in Twilio.',
      checked: full,
    };
  }
  if (bodyHash !== null) {
    const actual = createHash('sha256').update(req.body).digest('hex');
    if (!sameBytes(Buffer.from(bodyHash), Buffer.from(actual))) {
      return {
        valid: false,
        failure: 'mismatch',
        reason: `${HEADER} matches the URL, but the ${count(req.body.length)}-byte body does not hash to its bodySHA256: the body was changed.`,
        checked: { ...full, url: matchedUrl },
      };
    }
  }
  return {
    valid: true,
    failure: null,
    reason: `${HEADER} matches over ${matchedUrl}.`,
    checked: { ...full, url: matchedUrl },
  };
}
