// verify_signature: is a captured webhook's signature valid for a provider and secret, and if not, why. The
// check runs over the body bytes core hands back (Content-Encoding undone: providers sign the payload before
// any HTTP compression, and a receiver's body parser verifies the inflated bytes too), at the instant the
// request arrived, so a webhook read back an hour later is judged as the app judged it.
import { z } from 'zod';
import {
  PROVIDER_LIST,
  SIGNATURE_PROVIDERS,
  signatureHeadersOn,
  signatureOptionsSchema,
  verifySignature as verify,
  type SignatureVerdict,
} from '../../core/signatures/index.ts';
import type { RequestDetail } from '../../core/requests.ts';
import { uuid } from '../../core/schemas.ts';
import { defineTool, ToolError } from '../toolkit.ts';
import { hint, sandboxId } from './common.ts';
import { coreFields, ID_NAMES, invert, SIGNATURE_ARGS } from './coreArgs.ts';

const fields = coreFields(signatureOptionsSchema.shape, SIGNATURE_ARGS);

/** The body as the app received it; a cut body cannot be verified and is refused, never checked in part. */
function bodyBytes(sandboxId: string, request: RequestDetail): Buffer {
  if (request.bodyTruncated) {
    const why =
      request.bodyDecoding === 'cut'
        ? `decodes (from ${request.contentEncoding}) past the 5 MB the stored view keeps`
        : `(${request.sizeBytes.toLocaleString('en-US')} bytes) is past the 1 MB the request detail carries`;
    throw new ToolError(
      'PAYLOAD_TOO_LARGE',
      `The body of request ${request.id} ${why}, so the signed bytes cannot be read back whole and its signature cannot be verified`,
      `Verify it in the app, or over GET /api/v1/sandboxes/${sandboxId}/requests/${request.id}/raw (the request as received: every body byte after the blank line).`,
    );
  }
  if (request.body === null) return Buffer.alloc(0);
  return Buffer.from(request.body, request.bodyEncoding === 'base64' ? 'base64' : 'utf8');
}

/** The URL the sender called: the sandbox's capture URL, then the recorded path and query. */
function captureUrlOf(captureUrl: string, request: RequestDetail): string {
  const query = request.query === null ? '' : `?${request.query}`;
  return `${captureUrl.replace(/\/+$/, '')}${request.path}${query}`;
}

function hintFor(verdict: SignatureVerdict, request: RequestDetail): string {
  switch (verdict.failure) {
    case null:
      return 'Valid: the app should accept this request with this secret.';
    case 'missing_header': {
      const other = signatureHeadersOn(request.headers).find((h) => h.provider !== verdict.provider);
      return other === undefined
        ? `Check that the sender signs this request; providers: ${PROVIDER_LIST} (hmac_sha256 takes any header).`
        : `Call again with provider: "${other.provider}".`;
    }
    case 'malformed_header':
      return 'Check the provider, or use hmac_sha256 with header, encoding and prefix.';
    case 'stale_timestamp':
      return 'Secret and body are right. Resend the webhook, or pass a larger tolerance_seconds to accept it.';
    case 'mismatch':
      return verdict.provider === 'twilio'
        ? 'Check the auth token, and pass url if Twilio called another URL than the capture URL.'
        : "Check the secret is this endpoint's signing secret for this environment, and that nothing rewrote the body.";
  }
}

export const verifySignature = defineTool({
  name: 'verify_signature',
  title: 'Verify a webhook signature',
  description:
    "Checks a captured webhook's signature over the exact bytes received, as of its arrival: valid, or why " +
    'not (header missing, timestamp outside tolerance, wrong secret). standard_webhooks covers Svix; ' +
    'hmac_sha256 needs header; twilio signs the URL (default: the capture URL).',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    request_id: uuid,
    provider: z.enum(SIGNATURE_PROVIDERS),
    secret: fields.secret.describe('whsec_..., app secret or auth token.'),
    header: fields.header,
    encoding: fields.encoding,
    prefix: fields.prefix.describe('e.g. sha256='),
    tolerance_seconds: fields.tolerance_seconds.describe('Default 300; 0 = off.'),
    url: fields.url,
  }),
  outputSchema: z.object({
    valid: z.boolean(),
    reason: z.string(),
    provider: z.enum(SIGNATURE_PROVIDERS),
    checked: z.object({
      header: z.string(),
      signed_content: z.string(),
      algorithm: z.string(),
      body_bytes: z.number(),
      body_decoded_from: z.string().nullable().describe('The Content-Encoding undone before checking.'),
      timestamp_age_seconds: z.number().nullable(),
      tolerance_seconds: z.number().nullable(),
      url: z.string().nullable(),
    }),
    hint,
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...invert(SIGNATURE_ARGS) },
  async handler(args, { backend }) {
    const request = await backend.getRequest(args.sandbox_id, args.request_id);
    const body = bodyBytes(args.sandbox_id, request);
    const url =
      args.provider === 'twilio' && args.url === undefined
        ? captureUrlOf((await backend.getSandbox(args.sandbox_id)).captureUrl, request)
        : args.url;
    const verdict = verify({
      provider: args.provider,
      secret: args.secret,
      headers: request.headers,
      body,
      now: request.receivedAt,
      options: {
        header: args.header,
        encoding: args.encoding,
        prefix: args.prefix,
        toleranceSeconds: args.tolerance_seconds,
        url,
      },
    });
    const c = verdict.checked;
    return {
      valid: verdict.valid,
      reason: verdict.reason,
      provider: verdict.provider,
      checked: {
        header: c.header,
        signed_content: c.signedContent,
        algorithm: c.algorithm,
        body_bytes: c.bodyBytes,
        body_decoded_from: request.bodyDecoding === 'decoded' ? request.contentEncoding : null,
        timestamp_age_seconds: c.ageSeconds ?? null,
        tolerance_seconds: c.toleranceSeconds ?? null,
        url: c.url ?? null,
      },
      hint: hintFor(verdict, request),
    };
  },
});
