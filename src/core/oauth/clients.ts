// Who a client_id is: a client registered here (RFC 7591), or an https URL whose metadata document is fetched
// (and kept as a row, so grants can name it); and whether a token request really comes from it.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../store/schema.ts';
import { findClient, insertClient, upsertDocumentClient } from '../store/repos/oauth.ts';
import type { OAuthClientRow } from '../store/schema.ts';
import { checkClientMetadata, MAX_CLIENT_METADATA_BYTES, tooLarge } from './clientMetadata.ts';
import { refusal } from './params.ts';
import { grantedScope } from './scopes.ts';
import { hashSecret, isRegisteredClientId, newClientId, newSecret, sameHash } from './tokenFormat.ts';
import {
  type ClientMetadataFetcher,
  type OAuthRefusal,
  type PresentedClient,
  type RegistrationResult,
} from './types.ts';
import { redirectHostOf } from './redirectUris.ts';

export type ResolvedClient = { ok: true; client: OAuthClientRow } | OAuthRefusal;

/** A client_id that names a metadata document: an https URL with a path (MCP 2025-11-25). */
export function isDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

export function createClientDirectory(db: Kysely<Database>, clock: Clock, fetcher: ClientMetadataFetcher) {
  async function fromDocument(url: string): Promise<ResolvedClient> {
    const fetched = await fetcher.fetch(url);
    if (!fetched.ok) {
      return refusal(
        'invalid_client',
        `The client metadata document could not be used: ${fetched.description}`,
      );
    }
    const doc = fetched.document as Record<string, unknown>;
    if (doc.client_id !== url) {
      return refusal(
        'invalid_client',
        `The client metadata document at ${url} names client_id ${JSON.stringify(doc.client_id)}; it must be its own URL.`,
      );
    }
    if ('client_secret' in doc) {
      return refusal(
        'invalid_client',
        `The client metadata document at ${url} must not contain a client_secret.`,
      );
    }
    const checked = checkClientMetadata(doc, url);
    if (!checked.ok) {
      return refusal(
        'invalid_client',
        `The client metadata document at ${url} is not usable: ${checked.description}`,
      );
    }
    const now = clock.now();
    const m = checked.metadata;
    const row: OAuthClientRow = {
      client_id: url,
      kind: 'metadata-document',
      secret_hash: null,
      token_endpoint_auth_method: 'none',
      client_name: m.clientName ?? redirectHostOf(url),
      client_uri: m.clientUri ?? null,
      logo_uri: m.logoUri ?? null,
      redirect_uris: m.redirectUris,
      created_at: now,
      updated_at: now,
      first_authorized_at: null,
      last_used_at: null,
    };
    await upsertDocumentClient(db, row);
    return { ok: true, client: row };
  }

  async function resolve(clientId: string | undefined): Promise<ResolvedClient> {
    if (clientId === undefined) return refusal('invalid_request', 'client_id is required.');
    if (isDocumentClientId(clientId)) return fromDocument(clientId);
    const row = isRegisteredClientId(clientId) ? await findClient(db, clientId) : undefined;
    if (row === undefined || row.kind !== 'registered') {
      return refusal(
        'invalid_client',
        `client_id ${clientId} is not registered here. Register with POST /oauth/register, or use an https URL of a client metadata document.`,
      );
    }
    return { ok: true, client: row };
  }

  return {
    resolve,

    async register(body: unknown): Promise<RegistrationResult> {
      const bytes = Buffer.byteLength(JSON.stringify(body) ?? '');
      if (bytes > MAX_CLIENT_METADATA_BYTES) {
        const refused = tooLarge(bytes);
        return refusal(refused.error, refused.description);
      }
      const checked = checkClientMetadata(body);
      if (!checked.ok) return refusal(checked.error, checked.description);
      const m = checked.metadata;
      const now = clock.now();
      const clientId = newClientId();
      const secret = m.tokenEndpointAuthMethod === 'none' ? undefined : newSecret('secret');
      const name = m.clientName ?? redirectHostOf(m.redirectUris[0] as string);
      await insertClient(db, {
        client_id: clientId,
        kind: 'registered',
        secret_hash: secret === undefined ? null : hashSecret(secret),
        token_endpoint_auth_method: m.tokenEndpointAuthMethod,
        client_name: name,
        client_uri: m.clientUri ?? null,
        logo_uri: m.logoUri ?? null,
        redirect_uris: m.redirectUris,
        created_at: now,
        updated_at: now,
        first_authorized_at: null,
        last_used_at: null,
      });
      return {
        ok: true,
        registration: {
          client_id: clientId,
          client_id_issued_at: Math.floor(now.getTime() / 1000),
          ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
          client_name: name,
          ...(m.clientUri === undefined ? {} : { client_uri: m.clientUri }),
          ...(m.logoUri === undefined ? {} : { logo_uri: m.logoUri }),
          redirect_uris: m.redirectUris,
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: m.tokenEndpointAuthMethod,
          scope: grantedScope(m.scope),
        },
      };
    },

    /** Client authentication at the token and revocation endpoints (RFC 6749 §2.3): 401 invalid_client. */
    async authenticate(presented: PresentedClient): Promise<ResolvedClient> {
      if (presented.clientId === undefined) {
        return refusal(
          'invalid_client',
          'Send client_id (in the form, or with its secret as HTTP Basic).',
          401,
        );
      }
      const resolved = await resolve(presented.clientId);
      if (!resolved.ok) return { ...resolved, error: 'invalid_client', status: 401 };
      const { client } = resolved;
      if (client.token_endpoint_auth_method === 'none') {
        if (presented.clientSecret !== undefined) {
          return refusal(
            'invalid_client',
            `Client ${client.client_id} is a public client; send no client_secret.`,
            401,
          );
        }
        return resolved;
      }
      if (presented.clientSecret === undefined || client.secret_hash === null) {
        return refusal(
          'invalid_client',
          `Client ${client.client_id} registered with ${client.token_endpoint_auth_method}: send its client_secret.`,
          401,
        );
      }
      if (!sameHash(presented.clientSecret, client.secret_hash)) {
        return refusal('invalid_client', `The client_secret for ${client.client_id} is wrong.`, 401);
      }
      return resolved;
    },
  };
}

export type ClientDirectory = ReturnType<typeof createClientDirectory>;
