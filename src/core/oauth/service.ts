// core.oauth: the authorization server for /mcp (clients, consent, tokens) and the connected-apps list, composed
// from the pieces in this folder over one store.
import type { Kysely } from 'kysely';
import type { Principal } from '../apiKeys.ts';
import type { Clock } from '../clock.ts';
import { UUID_PATTERN } from '../random.ts';
import type { Database } from '../store/schema.ts';
import { deleteGrant, listGrants, pruneOAuth } from '../store/repos/oauth.ts';
import { createAuthorizations } from './authorization.ts';
import { createClientDirectory } from './clients.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.ts';
import { redirectHostOf } from './redirectUris.ts';
import { isOAuthToken } from './tokenFormat.ts';
import { createTokens } from './tokens.ts';
import type { ClientMetadataFetcher, GrantView, OAuthUrls } from './types.ts';

export interface OAuthOptions {
  /** PUBLIC_URL is set, or the API listener is on loopback. */
  enabled: boolean;
  urls: OAuthUrls;
  fetcher: ClientMetadataFetcher;
}

export function createOAuthService(
  db: Kysely<Database>,
  clock: Clock,
  { enabled, urls, fetcher }: OAuthOptions,
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
    register: clients.register,
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

    /** Disconnects a client: its tokens stop working at once. False when the workspace has no such grant. */
    async revokeGrant(principal: Principal, grantId: string): Promise<boolean> {
      if (!UUID_PATTERN.test(grantId)) return false;
      return deleteGrant(db, grantId.toLowerCase(), principal.workspaceId);
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
