// The signature headers of a mock rule's callback, made per attempt: Standard Webhooks (as every webhook of
// this service is signed), or one HMAC-SHA256 of the body in a header of the rule's choosing (GitHub's
// `X-Hub-Signature-256: sha256=<hex>` style), the forms verify_signature checks.
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { CallbackSigning } from '../mocks/types.ts';
import type { ClaimedRow } from '../store/repos/webhooks.ts';

export function callbackHeaders(row: ClaimedRow, at: Date): Record<string, string> {
  if (row.signing === null) return {};
  const signing = JSON.parse(row.signing) as CallbackSigning;
  if (signing.scheme === 'standard-webhooks') {
    return {
      'webhook-id': row.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(signing.secret).sign(row.id, at, row.payload),
    };
  }
  const mac = createHmac('sha256', signing.secret)
    .update(row.payload, 'utf8')
    .digest(signing.encoding ?? 'hex');
  return { [(signing.header ?? 'x-signature').toLowerCase()]: `${signing.prefix ?? ''}${mac}` };
}
