// Client metadata, from a Dynamic Client Registration body (RFC 7591) or a client ID metadata document: the
// fields sandtrap uses, checked, with a description of the first thing wrong.
import { z } from 'zod';
import { redirectUriProblem } from './redirectUris.ts';

const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type TokenEndpointAuthMethod = (typeof AUTH_METHODS)[number];

/**
 * The most a registration's metadata may take as JSON. MCP clients send a few hundred bytes (a name, one to six
 * redirect URIs, grant and response types); 8 KB leaves room for a dozen long redirect URIs and little for a
 * stranger filling the store.
 */
export const MAX_CLIENT_METADATA_BYTES = 8 * 1024;

const httpsUri = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      return ['https:', 'http:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

const metadataSchema = z.looseObject({
  redirect_uris: z.array(z.string().max(2048)).min(1, 'at least one redirect URI is required').max(20),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: httpsUri.optional(),
  logo_uri: httpsUri.optional(),
  scope: z.string().max(1000).optional(),
});

export interface CheckedMetadata {
  redirectUris: string[];
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  clientName: string | undefined;
  clientUri: string | undefined;
  logoUri: string | undefined;
  scope: string | undefined;
}

export type MetadataCheck =
  | { ok: true; metadata: CheckedMetadata }
  | { ok: false; error: 'invalid_redirect_uri' | 'invalid_client_metadata'; description: string };

/** RFC 7591 §3.2.2: a registration error is 400 with the error object; too much metadata is bad metadata. */
export function tooLarge(bytes: number | undefined): MetadataCheck & { ok: false } {
  const size = bytes === undefined ? 'more than' : `${bytes} bytes; the limit is`;
  return {
    ok: false,
    error: 'invalid_client_metadata',
    description:
      `The client metadata is ${size} ${MAX_CLIENT_METADATA_BYTES} bytes of JSON. Send only the fields a ` +
      'client needs (redirect_uris, client_name, token_endpoint_auth_method, grant_types, response_types).',
  };
}

/** Checks metadata a client describes itself with; `documentUrl` when it came from its metadata document. */
export function checkClientMetadata(body: unknown, documentUrl?: string): MetadataCheck {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      description: 'The client metadata must be a JSON object.',
    };
  }
  const parsed = metadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(body)';
    const error = field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    return { ok: false, error, description: `${field}: ${issue?.message ?? 'invalid'}` };
  }
  const m = parsed.data;
  for (const uri of m.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) return { ok: false, error: 'invalid_redirect_uri', description: problem };
  }
  const method = m.token_endpoint_auth_method ?? (documentUrl === undefined ? 'client_secret_basic' : 'none');
  if (!(AUTH_METHODS as readonly string[]).includes(method)) {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      description: `token_endpoint_auth_method ${method} is not supported; use one of ${AUTH_METHODS.join(', ')}.`,
    };
  }
  if (documentUrl !== undefined && method !== 'none') {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      description: `A client metadata document cannot hold a shared secret: its token_endpoint_auth_method must be none (it is ${method}).`,
    };
  }
  const grants = m.grant_types ?? ['authorization_code'];
  const unsupportedGrant = grants.find((g) => g !== 'authorization_code' && g !== 'refresh_token');
  if (unsupportedGrant !== undefined) {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      description: `grant_types: ${unsupportedGrant} is not supported; use authorization_code and refresh_token.`,
    };
  }
  if (!grants.includes('authorization_code')) {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      description: 'grant_types must include authorization_code.',
    };
  }
  const responses = m.response_types ?? ['code'];
  if (responses.some((r) => r !== 'code')) {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      description: 'response_types may only be ["code"].',
    };
  }
  return {
    ok: true,
    metadata: {
      redirectUris: m.redirect_uris,
      tokenEndpointAuthMethod: method as TokenEndpointAuthMethod,
      clientName: m.client_name,
      clientUri: m.client_uri,
      logoUri: m.logo_uri,
      scope: m.scope,
    },
  };
}
