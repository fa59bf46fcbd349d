// AWS Signature Version 4 as SES checks it: the Authorization header's credential scope, SignedHeaders and
// Signature, `x-amz-date` within 15 minutes, `x-amz-content-sha256` (when sent) matching the body. The signature
// is recomputed with @smithy/signature-v4, the signer the AWS SDK itself uses, from the same canonical request.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';

/** What the signature covers, as it arrived: method, the raw path and query, headers, body bytes. */
export interface SignedRequest {
  method: string;
  /** Path and query exactly as sent (request.url), percent-encoding included: the signer encodes it again. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export type SigV4Result =
  | { ok: true; accessKeyId: string; verify: (secret: string) => Promise<boolean> }
  | { ok: false; problem: SigV4Problem; message: string };

/** The AWS error type of each refusal made before any key is looked up (so none says whether it exists). */
export type SigV4Problem =
  | 'MissingAuthenticationTokenException'
  | 'IncompleteSignatureException'
  | 'InvalidSignatureException'
  | 'SignatureDoesNotMatch';

/** AWS's allowed clock difference between the signer and the service. */
const MAX_SKEW_MS = 15 * 60 * 1000;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const ALGORITHM = 'AWS4-HMAC-SHA256';

const refuse = (problem: SigV4Problem, message: string): SigV4Result => ({ ok: false, problem, message });

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** `Credential=…, SignedHeaders=…, Signature=…` in any order, as AWS accepts them. */
function authorizationParts(value: string): Map<string, string> | undefined {
  if (!value.startsWith(`${ALGORITHM} `)) return undefined;
  const parts = new Map<string, string>();
  for (const part of value.slice(ALGORITHM.length).split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) parts.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return parts;
}

function parseAmzDate(value: string): Date | undefined {
  const m = AMZ_DATE.exec(value);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function query(url: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const at = url.indexOf('?');
  if (at < 0) return out;
  for (const [name, value] of new URLSearchParams(url.slice(at + 1))) {
    const seen = out[name];
    out[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return out;
}

const sameHex = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Checks everything that needs no secret and returns the access key id with a `verify` that recomputes the
 * signature under a given secret key. `service` is the one the scope must name (`ses`); any region is taken.
 */
export function checkSigV4(request: SignedRequest, now: Date, service: string): SigV4Result {
  const authorization = single(request.headers.authorization);
  if (authorization === undefined || authorization === '')
    return refuse('MissingAuthenticationTokenException', 'Missing Authentication Token');
  const parts = authorizationParts(authorization);
  const credential = parts?.get('Credential');
  const signedHeaders = parts?.get('SignedHeaders');
  const signature = parts?.get('Signature');
  if (credential === undefined || signedHeaders === undefined || signature === undefined)
    return refuse(
      'IncompleteSignatureException',
      `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters (${ALGORITHM}).`,
    );
  const scope = credential.split('/');
  const [accessKeyId, day, region, scopedService, terminator] = scope;
  if (scope.length !== 5 || terminator !== 'aws4_request' || !accessKeyId || !day || !region)
    return refuse(
      'IncompleteSignatureException',
      'Credential must be <access key id>/<date>/<region>/<service>/aws4_request.',
    );
  const amzDate = single(request.headers['x-amz-date']) ?? '';
  const signingDate = parseAmzDate(amzDate);
  if (signingDate === undefined)
    return refuse(
      'IncompleteSignatureException',
      "Authorization header requires existence of a valid 'X-Amz-Date' header (yyyyMMddTHHmmssZ).",
    );
  const skew = signingDate.getTime() - now.getTime();
  if (Math.abs(skew) > MAX_SKEW_MS)
    return refuse(
      'InvalidSignatureException',
      skew < 0
        ? `Signature expired: ${amzDate} is now earlier than 15 min before the server's time.`
        : `Signature not yet current: ${amzDate} is still later than 15 min after the server's time.`,
    );
  if (day !== amzDate.slice(0, 8))
    return refuse(
      'SignatureDoesNotMatch',
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${day}' != '${amzDate.slice(0, 8)}'.`,
    );
  if (scopedService !== service)
    return refuse('SignatureDoesNotMatch', `Credential should be scoped to correct service: '${service}'.`);
  const names = signedHeaders.split(';');
  if (!names.includes('host') || names.some((n) => n !== n.toLowerCase() || request.headers[n] === undefined))
    return refuse(
      'SignatureDoesNotMatch',
      "SignedHeaders must include 'host' and name only headers the request has, in lower case.",
    );
  // Temporary credentials need a session token service; the sandboxes' keys are long-term keys only.
  if (request.headers['x-amz-security-token'] !== undefined)
    return refuse('SignatureDoesNotMatch', 'Session tokens are not accepted; sign with the sandbox key.');
  const declaredHash = single(request.headers['x-amz-content-sha256']);
  if (declaredHash !== undefined && declaredHash !== createHash('sha256').update(request.body).digest('hex'))
    return refuse('SignatureDoesNotMatch', 'The x-amz-content-sha256 header does not match the body.');

  const headers: Record<string, string> = {};
  for (const name of names) headers[name] = single(request.headers[name]) ?? '';
  const path = request.url.split('?')[0] ?? '/';
  return {
    ok: true,
    accessKeyId,
    async verify(secret: string): Promise<boolean> {
      const signer = new SignatureV4({
        credentials: { accessKeyId, secretAccessKey: secret },
        region,
        service,
        sha256: Hash.bind(null, 'sha256'),
        // The headers signed are exactly those the sender listed; the signer adds none of its own.
        applyChecksum: false,
        uriEscapePath: true,
      });
      const signed = await signer.sign(
        {
          method: request.method,
          protocol: 'http:',
          hostname: headers.host ?? '',
          path,
          query: query(request.url),
          headers,
          body: request.body,
        },
        { signingDate, signingRegion: region, signingService: service, signableHeaders: new Set(names) },
      );
      const recomputed = authorizationParts(String(signed.headers.authorization ?? ''));
      return (
        recomputed?.get('SignedHeaders') === signedHeaders &&
        sameHex(recomputed.get('Signature') ?? '', signature)
      );
    },
  };
}
