// core.oauth: the authorization server for /mcp (clients, consent, tokens) and the connected-apps list, composed
// from the pieces in this folder over one store.
import type { Kysely } from 'kysely';
import type { Principal } from '../apiKeys.ts';
import type { Clock } from '../clock.ts';
import { UUID_PATTERN } from '../random.ts';
import type { Database } from '../store/schema.ts';
import type { Limiter } from '../rateLimits.ts';
import {
  deleteGrant,
  listGrants,
  pruneOAuth,
  pruneOAuthClients,
  type OAuthClientSweep,
} from '../store/repos/oauth.ts';
import { withSweepLock } from '../store/repos/sweeps.ts';
import { createAuthorizations } from './authorization.ts';
import { createClientDirectory } from './clients.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.ts';
import { redirectHostOf } from './redirectUris.ts';
import { isOAuthToken } from './tokenFormat.ts';
import { createTokens } from './tokens.ts';
import type {
  ClientMetadataFetcher,
  GrantView,
  OAuthUrls,
  RegistrationResult,
  RegistrationSource,
} from './types.ts';

/** A registered client that never completes an authorization is dropped after this. */
export const NEVER_AUTHORIZED_CLIENT_TTL_MS = 86_400_000;
/** A client that gets no tokens for this long is dropped (its grants ended long before: refresh lasts 30 d). */
export const UNUSED_CLIENT_TTL_MS = 90 * 86_400_000;

export interface OAuthOptions {
  /** PUBLIC_URL is set, or the API listener is on loopback. */
  enabled: boolean;
  urls: OAuthUrls;
  fetcher: ClientMetadataFetcher;
  /** Registrations per client address (core.limits.oauthRegistrations). */
  registrations: Limiter;
  /** PostgreSQL: the client sweep takes the sweeps' advisory lock. */
  useAdvisoryLock: boolean;
}

export function createOAuthService(
  db: Kysely<Database>,
  clock: Clock,
  { enabled, urls, fetcher, registrations, useAdvisoryLock }: OAuthOptions,
) {
  const clients = createClientDirectory(db, clock, fetcher);
  const authorizations = createAuthorizations(db, clock, clients, urls);
  const tokens = createTokens(db, clock, clients, urls);
  return {
    enabled,
    urls,
    isOAuthToken,
    authorizationServerMetadata: () => authorizationServerMetadata(urls),
    protectedResourceMetadata: () => protectedResourceMetadata(urls),
    /**
     * Dynamic Client Registration from `source.address`: counted against that address's hourly budget first
     * (atomic, so concurrent requests and other processes cannot overshoot it), and given back when the
     * metadata is refused, so a client fixing its request is not the one that runs out.
     */
    async register(body: unknown, source: RegistrationSource): Promise<RegistrationResult> {
      const counted = await registrations.consume(source.address);
      if (!counted.ok) {
        return {
          ok: false,
          error: 'invalid_request',
          description:
            `Too many client registrations from this address (OAUTH_REGISTRATIONS_PER_HOUR); retry in ` +
            `${counted.retryAfterSeconds} s, or reuse the client_id already registered.`,
          status: 429,
          retryAfterSeconds: counted.retryAfterSeconds,
        };
      }
      const result = await clients.register(body);
      if (!result.ok) await registrations.refund(source.address);
      return result;
    },
    startAuthorization: authorizations.start,
    describeAuthorization: authorizations.describe,
    decide: authorizations.decide,
    token: tokens.token,
    revoke: tokens.revoke,
    authenticateAccessToken: tokens.authenticateAccessToken,

    /** The workspace's connected clients whose approving key still stands. */
    async listGrants(principal: Principal): Promise<GrantView[]> {
      const rows = await listGrants(db, principal.workspaceId, clock.now());
      return rows.map(({ grant, client, keyLabel }) => ({
        id: grant.id,
        client: {
          clientId: client.client_id,
          kind: client.kind,
          name: client.client_name,
          uri: client.client_uri,
        },
        redirectHost: redirectHostOf(grant.redirect_uri),
        scope: grant.scope,
        keyId: grant.key_id,
        keyLabel,
        createdAt: grant.created_at,
        lastUsedAt: grant.last_used_at,
      }));
    },

    /** Drops what can no longer be used (run by the sweep). */
    prune: (): Promise<void> => pruneOAuth(db, clock.now()),

    /**
     * The sweep's share for clients, under the sweep lock: drops those never authorized a day after they
     * registered and those unused for 90 days, and counts what is left. Undefined when another process holds
     * the lock.
     */
    sweepClients(): Promise<OAuthClientSweep | undefined> {
      const now = clock.now().getTime();
      return withSweepLock(db, useAdvisoryLock, (trx) =>
        pruneOAuthClients(
          trx,
          new Date(now),
          new Date(now - NEVER_AUTHORIZED_CLIENT_TTL_MS),
          new Date(now - UNUSED_CLIENT_TTL_MS),
        ),
      );
    },

    /** Disconnects a client: its tokens stop working at once. False when the workspace has no such grant. */
    async revokeGrant(principal: Principal, grantId: string): Promise<boolean> {
      if (!UUID_PATTERN.test(grantId)) return false;
      return deleteGrant(db, grantId.toLowerCase(), principal.workspaceId);
    },
  };
}
