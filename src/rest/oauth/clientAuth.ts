// Client authentication at the token and revocation endpoints (RFC 6749 §2.3.1): HTTP Basic with the
// form-urlencoded client id and secret, or client_id/client_secret in the form, or a public client's bare
// client_id; never two methods at once.
import type { OAuthRefusal, PresentedClient } from '../../core/oauth/types.ts';
import { param, refusal, type Params } from '../../core/oauth/params.ts';

const BASIC = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i;
const BASE64_LENGTH_OK = (b64: string) => b64.length % 4 === 0;

/** application/x-www-form-urlencoded decoding of one Basic component; undefined when not valid. */
function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** The Authorization header(s) from `rawHeaders` (duplicates kept, unlike `headers`). */
function authorizationHeaders(rawHeaders: readonly string[]): string[] {
  const found: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === 'authorization') found.push(rawHeaders[i + 1] as string);
  }
  return found;
}

const badBasic = (why: string) =>
  refusal(
    'invalid_client',
    `The Authorization header is not valid HTTP Basic client authentication: ${why}. Send ` +
      '"Basic base64(urlencode(client_id) ":" urlencode(client_secret))" (RFC 6749 §2.3.1).',
    401,
  );

function basicCredentials(header: string): { id: string; secret: string } | OAuthRefusal {
  const match = BASIC.exec(header);
  if (match === null) {
    return /^Basic\b/i.test(header)
      ? badBasic('the credentials are not base64')
      : refusal(
          'invalid_request',
          'The token endpoint takes client credentials as HTTP Basic ("Authorization: Basic ...") or as ' +
            'client_id and client_secret in the form; the Authorization header sent is neither.',
        );
  }
  const b64 = match[1] as string;
  if (!BASE64_LENGTH_OK(b64)) return badBasic('the credentials are not base64');
  const decoded = Buffer.from(b64, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return badBasic('there is no ":" between the client id and the secret');
  const id = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  if (id === undefined || secret === undefined) return badBasic('a component is not valid percent-encoding');
  if (id === '') return badBasic('the client id is empty');
  return { id, secret };
}

/** Who the client says it is and how it proves it, or a refusal when that is malformed or ambiguous. */
export function presentedClient(
  rawHeaders: readonly string[],
  form: Params,
): { ok: true; client: PresentedClient } | OAuthRefusal {
  const formId = param(form, 'client_id');
  if (!formId.ok) return formId;
  const formSecret = param(form, 'client_secret');
  if (!formSecret.ok) return formSecret;
  const headers = authorizationHeaders(rawHeaders);
  if (headers.length > 1) {
    return refusal('invalid_request', 'The Authorization header was sent more than once; send it once.');
  }
  const header = headers[0];
  if (header === undefined) {
    const method = formSecret.value === undefined ? 'none' : 'client_secret_post';
    return { ok: true, client: { clientId: formId.value, clientSecret: formSecret.value, method } };
  }
  const basic = basicCredentials(header);
  if ('ok' in basic) return basic;
  if (formSecret.value !== undefined) {
    return refusal(
      'invalid_request',
      'The client authenticated twice (HTTP Basic and client_secret in the form); use one method only.',
    );
  }
  if (formId.value !== undefined && formId.value !== basic.id) {
    return refusal(
      'invalid_request',
      'The client_id in the form differs from the one in the HTTP Basic credentials; send one client id.',
    );
  }
  return {
    ok: true,
    // A public client that sends Basic with an empty secret is sending no secret.
    client: {
      clientId: basic.id,
      clientSecret: basic.secret === '' ? undefined : basic.secret,
      method: 'client_secret_basic',
    },
  };
}
