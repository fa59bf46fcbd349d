// The authorization endpoint's work: check a request (client, redirect, PKCE, resource, scope), park it for a
// person's decision on the consent page, and turn the decision into a code or access_denied at the redirect.
import type { Kysely } from 'kysely';
import type { Principal } from '../apiKeys.ts';
import type { Clock } from '../clock.ts';
import { newId, UUID_PATTERN } from '../random.ts';
import type { Database } from '../store/schema.ts';
import {
  deleteExpiredAuthorizationRequests,
  findAuthorizationRequest,
  insertAuthorizationRequest,
  insertGrantWithCode,
  takeAuthorizationRequest,
} from '../store/repos/oauth.ts';
import type { ClientDirectory } from './clients.ts';
import { params, refusal, type Params } from './params.ts';
import { matchRedirectUri, redirectHostOf, redirectUriProblem, withParams } from './redirectUris.ts';
import { sameResource } from './resource.ts';
import { grantedScope } from './scopes.ts';
import { hashSecret, newSecret, S256_CHALLENGE_SHAPE } from './tokenFormat.ts';
import {
  AUTHORIZATION_REQUEST_TTL_S,
  CODE_TTL_S,
  type AuthorizationRequestView,
  type AuthorizationStart,
  type Decision,
  type OAuthErrorCode,
  type OAuthUrls,
} from './types.ts';

const NAMES = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;

export function createAuthorizations(
  db: Kysely<Database>,
  clock: Clock,
  clients: ClientDirectory,
  urls: OAuthUrls,
) {
  return {
    async start(query: Params): Promise<AuthorizationStart> {
      const read = params(query, NAMES);
      if (!read.ok) return read;
      const p = read.values;
      // Until the client and its redirect URI are known good, nothing is sent to the redirect URI.
      const resolved = await clients.resolve(p.client_id);
      if (!resolved.ok) return resolved;
      const { client } = resolved;
      // The rules registration applies, applied again to what the browser would be sent to: a loopback match
      // ignores the port and must not let credentials ride along, and a client registered before a rule was
      // tightened is held to it too.
      const problem = redirectUriProblem(p.redirect_uri ?? (client.redirect_uris[0] as string));
      if (problem !== undefined) return refusal('invalid_request', `redirect_uri: ${problem}.`);
      let redirectUri: string;
      if (p.redirect_uri === undefined) {
        if (client.redirect_uris.length !== 1) {
          return refusal(
            'invalid_request',
            'redirect_uri is required: this client registered more than one.',
          );
        }
        redirectUri = client.redirect_uris[0] as string;
      } else {
        const matched = matchRedirectUri(p.redirect_uri, client.redirect_uris);
        if (matched === undefined) {
          return refusal(
            'invalid_request',
            `redirect_uri ${p.redirect_uri} is not one of the redirect URIs registered for client ${client.client_id}.`,
          );
        }
        redirectUri = matched;
      }
      const back = (error: OAuthErrorCode, description: string): AuthorizationStart => ({
        ok: false,
        error,
        description,
        redirectTo: withParams(redirectUri, {
          error,
          error_description: description,
          state: p.state,
          iss: urls.issuer(),
        }),
      });
      if (p.response_type !== 'code') {
        return back('unsupported_response_type', 'response_type must be code (the authorization code flow).');
      }
      if (p.code_challenge === undefined) {
        return back('invalid_request', 'code_challenge is required: PKCE with S256 is mandatory.');
      }
      if (p.code_challenge_method !== 'S256') {
        return back(
          'invalid_request',
          `code_challenge_method must be S256${p.code_challenge_method === undefined ? '' : ` (not ${p.code_challenge_method})`}.`,
        );
      }
      if (!S256_CHALLENGE_SHAPE.test(p.code_challenge)) {
        return back(
          'invalid_request',
          'code_challenge must be the base64url SHA-256 of the verifier (43 characters).',
        );
      }
      if (p.resource === undefined) {
        return back('invalid_target', `resource is required (RFC 8707): send resource=${urls.resource()}.`);
      }
      if (!sameResource(p.resource, urls.resource())) {
        return back(
          'invalid_target',
          `resource ${p.resource} is not served here; this server issues tokens for ${urls.resource()}.`,
        );
      }
      // RFC 6749 §3.3: scopes the server does not know are left out, not refused (clients add their own, such
      // as claudeai); what is granted is always mcp, with offline_access when it was asked for.
      const scope = grantedScope(p.scope);
      const now = clock.now();
      await deleteExpiredAuthorizationRequests(db, now);
      const id = newId();
      await insertAuthorizationRequest(db, {
        id,
        client_id: client.client_id,
        redirect_uri: redirectUri,
        state: p.state ?? null,
        code_challenge: p.code_challenge,
        scope,
        resource: urls.resource(),
        created_at: now,
        expires_at: new Date(now.getTime() + AUTHORIZATION_REQUEST_TTL_S * 1000),
      });
      return { ok: true, requestId: id };
    },

    async describe(requestId: string, principal: Principal): Promise<AuthorizationRequestView | undefined> {
      if (!UUID_PATTERN.test(requestId)) return undefined;
      const found = await findAuthorizationRequest(db, requestId.toLowerCase(), clock.now());
      if (found === undefined) return undefined;
      const { request, client } = found;
      return {
        id: request.id,
        client: {
          clientId: client.client_id,
          kind: client.kind,
          name: client.client_name,
          uri: client.client_uri,
          logoUri: client.logo_uri,
        },
        redirectUri: request.redirect_uri,
        redirectHost: redirectHostOf(request.redirect_uri),
        scope: request.scope,
        resource: request.resource,
        workspace: { id: principal.workspaceId, name: principal.workspaceName },
        approver: { keyId: principal.keyId, keyLabel: principal.label },
        expiresAt: request.expires_at,
      };
    },

    async decide(
      requestId: string,
      principal: Principal,
      decision: Decision,
    ): Promise<{ redirectTo: string } | undefined> {
      if (!UUID_PATTERN.test(requestId)) return undefined;
      const now = clock.now();
      const request = await takeAuthorizationRequest(db, requestId.toLowerCase(), now);
      if (request === undefined) return undefined;
      const iss = urls.issuer();
      if (decision === 'deny') {
        return {
          redirectTo: withParams(request.redirect_uri, {
            error: 'access_denied',
            error_description: 'The person signed in to sandtrap denied access.',
            state: request.state,
            iss,
          }),
        };
      }
      const code = newSecret('code');
      const grantId = newId();
      await insertGrantWithCode(
        db,
        {
          id: grantId,
          client_id: request.client_id,
          workspace_id: principal.workspaceId,
          key_id: principal.keyId,
          redirect_uri: request.redirect_uri,
          scope: request.scope,
          resource: request.resource,
          created_at: now,
          last_used_at: null,
        },
        {
          code_hash: hashSecret(code),
          grant_id: grantId,
          redirect_uri: request.redirect_uri,
          code_challenge: request.code_challenge,
          created_at: now,
          expires_at: new Date(now.getTime() + CODE_TTL_S * 1000),
          used_at: null,
        },
      );
      return { redirectTo: withParams(request.redirect_uri, { code, state: request.state, iss }) };
    },
  };
}
