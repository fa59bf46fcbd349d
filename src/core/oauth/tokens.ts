// The token endpoint's grants (authorization_code with PKCE, refresh_token with rotation), revocation (RFC 7009)
// and the check of an access token presented to /mcp. A replayed code or refresh token ends its whole grant.
import type { Kysely } from 'kysely';
import { principalOf } from '../apiKeys.ts';
import type { Clock } from '../clock.ts';
import type { Database, TokenRow } from '../store/schema.ts';
import {
  claimCode,
  claimRefreshToken,
  deleteGrant,
  deleteToken,
  findGrantContext,
  findTokenWithGrant,
  insertTokenPair,
  touchGrant,
  type GrantContext,
} from '../store/repos/oauth.ts';
import type { ClientDirectory } from './clients.ts';
import { params, refusal, type Params } from './params.ts';
import { sameResource } from './resource.ts';
import { hashSecret, hasShape, newSecret, pkceMatches, VERIFIER_SHAPE } from './tokenFormat.ts';
import {
  ACCESS_TOKEN_TTL_S,
  REFRESH_TOKEN_TTL_S,
  type AccessTokenAuth,
  type OAuthRefusal,
  type OAuthUrls,
  type PresentedClient,
  type TokenResult,
} from './types.ts';

/** Why a grant's key can no longer stand behind it, or undefined while it can. */
function deadKey(context: GrantContext, now: Date): 'key-revoked' | 'key-expired' | undefined {
  if (context.key.revoked_at !== null) return 'key-revoked';
  if (context.key.expires_at !== null && now.getTime() >= context.key.expires_at.getTime())
    return 'key-expired';
  return undefined;
}

/** How stale last_used_at may get: the dashboard shows it to the minute. */
const TOUCH_EVERY_MS = 60_000;

const DEAD_KEY_GRANT = {
  'key-revoked': 'The API key that approved this connection has been revoked; connect again.',
  'key-expired': 'The API key that approved this connection has expired; connect again.',
};

export function createTokens(db: Kysely<Database>, clock: Clock, clients: ClientDirectory, urls: OAuthUrls) {
  async function issue(grantId: string, scope: string): Promise<TokenResult> {
    const now = clock.now();
    const access = newSecret('access');
    const refresh = newSecret('refresh');
    const row = (token: string, kind: TokenRow['kind'], ttl: number): TokenRow => ({
      token_hash: hashSecret(token),
      grant_id: grantId,
      kind,
      created_at: now,
      expires_at: new Date(now.getTime() + ttl * 1000),
      used_at: null,
    });
    await insertTokenPair(
      db,
      grantId,
      row(access, 'access', ACCESS_TOKEN_TTL_S),
      row(refresh, 'refresh', REFRESH_TOKEN_TTL_S),
      now,
    );
    return {
      ok: true,
      tokens: {
        access_token: access,
        token_type: 'Bearer',
        expires_in: ACCESS_TOKEN_TTL_S,
        refresh_token: refresh,
        scope,
      },
    };
  }

  /** The grant behind a code or refresh token, if it belongs to this client and its key still stands. */
  async function liveGrant(
    grantId: string,
    clientId: string,
    known?: GrantContext,
  ): Promise<GrantContext | OAuthRefusal> {
    const context = known ?? (await findGrantContext(db, grantId));
    if (context === undefined) return refusal('invalid_grant', 'The grant has been revoked; connect again.');
    if (context.grant.client_id !== clientId) {
      return refusal('invalid_grant', 'The grant was issued to another client.');
    }
    const dead = deadKey(context, clock.now());
    if (dead !== undefined) {
      await deleteGrant(db, grantId);
      return refusal('invalid_grant', DEAD_KEY_GRANT[dead]);
    }
    return context;
  }

  async function byCode(form: Params, clientId: string): Promise<TokenResult> {
    const read = params(form, ['code', 'redirect_uri', 'code_verifier', 'resource']);
    if (!read.ok) return read;
    const { code, redirect_uri, code_verifier, resource } = read.values;
    if (code === undefined)
      return refusal('invalid_request', 'code is required for grant_type authorization_code.');
    if (code_verifier === undefined) {
      return refusal('invalid_request', 'code_verifier is required: PKCE is mandatory.');
    }
    if (!VERIFIER_SHAPE.test(code_verifier)) {
      return refusal(
        'invalid_request',
        'code_verifier must be 43–128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636).',
      );
    }
    const now = clock.now();
    const claimed = hasShape(code, 'code') ? await claimCode(db, hashSecret(code), now) : undefined;
    if (claimed === undefined) return refusal('invalid_grant', 'The authorization code is not valid.');
    const { code: row, firstUse } = claimed;
    if (!firstUse) {
      // RFC 6749 §4.1.2: a replayed code may be stolen; whatever it already gave out is withdrawn.
      await deleteGrant(db, row.grant_id);
      return refusal(
        'invalid_grant',
        'The authorization code was already used; the connection it made has been revoked. Start the authorization again.',
      );
    }
    if (now.getTime() >= row.expires_at.getTime()) {
      await deleteGrant(db, row.grant_id);
      return refusal(
        'invalid_grant',
        'The authorization code has expired (codes live 60 s); start the authorization again.',
      );
    }
    const context = await liveGrant(row.grant_id, clientId);
    if ('ok' in context) return context;
    if (redirect_uri !== undefined && redirect_uri !== row.redirect_uri) {
      return refusal('invalid_grant', 'redirect_uri differs from the one the code was issued to.');
    }
    if (resource !== undefined && !sameResource(resource, context.grant.resource)) {
      return refusal(
        'invalid_target',
        `resource must be ${context.grant.resource}, the resource this code is for.`,
      );
    }
    if (!pkceMatches(code_verifier, row.code_challenge)) {
      await deleteGrant(db, row.grant_id);
      return refusal(
        'invalid_grant',
        'code_verifier does not match the code_challenge of the authorization request.',
      );
    }
    return issue(row.grant_id, context.grant.scope);
  }

  async function byRefreshToken(form: Params, clientId: string): Promise<TokenResult> {
    const read = params(form, ['refresh_token', 'scope', 'resource']);
    if (!read.ok) return read;
    const { refresh_token, scope, resource } = read.values;
    if (refresh_token === undefined) {
      return refusal('invalid_request', 'refresh_token is required for grant_type refresh_token.');
    }
    const hash = hasShape(refresh_token, 'refresh') ? hashSecret(refresh_token) : undefined;
    const found = hash === undefined ? undefined : await findTokenWithGrant(db, hash);
    if (found === undefined || found.token.kind !== 'refresh')
      return refusal('invalid_grant', 'The refresh token is not valid (revoked or unknown).');
    if (found.token.used_at !== null) return replayedRefresh(found.token.grant_id);
    if (clock.now().getTime() >= found.token.expires_at.getTime()) {
      return refusal('invalid_grant', 'The refresh token has expired; connect again.');
    }
    const context = await liveGrant(found.token.grant_id, clientId, found.context);
    if ('ok' in context) return context;
    // The request's own parameters are checked before the token is spent: a refusal for them leaves the
    // refresh token as it was, so the client can ask again correctly.
    if (resource !== undefined && !sameResource(resource, context.grant.resource)) {
      return refusal(
        'invalid_target',
        `resource must be ${context.grant.resource}, the resource of this grant.`,
      );
    }
    // RFC 6749 §6: a refresh may narrow the scope, never widen it past what was granted.
    const granted = new Set(context.grant.scope.split(' '));
    const wider = (scope ?? '').split(' ').find((s) => s !== '' && !granted.has(s));
    if (wider !== undefined) {
      return refusal(
        'invalid_scope',
        `Scope ${wider} was not granted to this connection (granted: ${context.grant.scope}).`,
      );
    }
    // Spent exactly once: of two requests racing with one token, the second is a replay.
    const claimed = await claimRefreshToken(db, hash as string, clock.now());
    if (claimed === undefined) return refusal('invalid_grant', 'The grant has been revoked; connect again.');
    if (!claimed.firstUse) return replayedRefresh(claimed.token.grant_id);
    return issue(claimed.token.grant_id, context.grant.scope);
  }

  /** Rotation: each refresh token works once. A second use means two holders; neither keeps the grant. */
  async function replayedRefresh(grantId: string): Promise<OAuthRefusal> {
    await deleteGrant(db, grantId);
    return refusal(
      'invalid_grant',
      'The refresh token was already used; the whole connection has been revoked because it may have leaked. Connect again.',
    );
  }

  return {
    async token(form: Params, presented: PresentedClient): Promise<TokenResult> {
      const read = params(form, ['grant_type']);
      if (!read.ok) return read;
      const grantType = read.values.grant_type;
      if (grantType === undefined) return refusal('invalid_request', 'grant_type is required.');
      const authed = await clients.authenticate(presented);
      if (!authed.ok)
        return { ...authed, ...(presented.clientId === undefined ? {} : { clientId: presented.clientId }) };
      const clientId = authed.client.client_id;
      let result: TokenResult;
      if (grantType === 'authorization_code') result = await byCode(form, clientId);
      else if (grantType === 'refresh_token') result = await byRefreshToken(form, clientId);
      else {
        result = refusal(
          'unsupported_grant_type',
          `grant_type ${grantType} is not supported; use authorization_code or refresh_token.`,
        );
      }
      return result.ok ? result : { ...result, clientId };
    },

    /** RFC 7009: an unknown token, or one of another client, is answered like a revoked one. */
    async revoke(form: Params, presented: PresentedClient): Promise<{ ok: true } | OAuthRefusal> {
      const read = params(form, ['token', 'token_type_hint']);
      if (!read.ok) return read;
      const { token } = read.values;
      if (token === undefined) return refusal('invalid_request', 'token is required.');
      const authed = await clients.authenticate(presented);
      if (!authed.ok) return authed;
      if (!hasShape(token, 'access') && !hasShape(token, 'refresh')) return { ok: true };
      const found = await findTokenWithGrant(db, hashSecret(token));
      if (found === undefined || found.context.grant.client_id !== authed.client.client_id)
        return { ok: true };
      // Revoking the refresh token ends the grant (and its access tokens); an access token goes alone.
      if (found.token.kind === 'refresh') await deleteGrant(db, found.token.grant_id);
      else await deleteToken(db, found.token.token_hash);
      return { ok: true };
    },

    async authenticateAccessToken(token: string): Promise<AccessTokenAuth> {
      if (!hasShape(token, 'access')) return { ok: false, reason: 'unknown' };
      const found = await findTokenWithGrant(db, hashSecret(token));
      if (found === undefined || found.token.kind !== 'access') return { ok: false, reason: 'unknown' };
      const { token: row, context } = found;
      const now = clock.now();
      if (now.getTime() >= row.expires_at.getTime()) return { ok: false, reason: 'expired' };
      // Audience: a token is for the MCP resource it was granted for, and that must be this server's.
      if (!sameResource(context.grant.resource, urls.resource()))
        return { ok: false, reason: 'wrong-audience' };
      const dead = deadKey(context, now);
      if (dead !== undefined) return { ok: false, reason: dead };
      // The grant was just read: write last_used_at only when it is a minute old, not on every MCP call.
      const lastUsed = context.grant.last_used_at?.getTime() ?? -Infinity;
      if (now.getTime() - lastUsed >= TOUCH_EVERY_MS) await touchGrant(db, context.grant.id, now);
      return {
        ok: true,
        principal: principalOf(context.workspace, context.key),
        grantId: context.grant.id,
        clientId: context.grant.client_id,
        scopes: context.grant.scope.split(' '),
        resource: context.grant.resource,
        expiresAt: row.expires_at,
      };
    },
  };
}
