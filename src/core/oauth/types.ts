// The OAuth 2.1 authorization server's shapes: what core answers the OAuth endpoints, the consent API and /mcp.
// Refusals are values carrying the RFC error code and a description that says what to fix.
import type { Principal } from '../apiKeys.ts';

/** The one scope sandtrap grants: use of the MCP server in the approving key's workspace. */
export const MCP_SCOPE = 'mcp';
/** Asked for by clients that want a refresh token (SEP-2207); granted alongside mcp when asked for. */
export const OFFLINE_ACCESS_SCOPE = 'offline_access';
/** Access tokens live an hour; refresh tokens 30 days from their issue (each use issues a new one). */
export const ACCESS_TOKEN_TTL_S = 3_600;
export const REFRESH_TOKEN_TTL_S = 30 * 86_400;
/** Authorization codes: single use, 60 s. */
export const CODE_TTL_S = 60;
/** A person has this long to approve or deny on the consent page. */
export const AUTHORIZATION_REQUEST_TTL_S = 600;

/** The RFC 6749 / 7591 / 8707 error codes sandtrap answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error';

export interface OAuthRefusal {
  ok: false;
  error: OAuthErrorCode;
  description: string;
  /** HTTP status: 400, or 401 for invalid_client (the token and revocation endpoints). */
  status: 400 | 401;
}

/** Where the authorization server and the MCP resource live, read on each use (port 0 is bound late). */
export interface OAuthUrls {
  /** PUBLIC_URL, else http://<host>:<API_PORT>: no trailing slash. */
  issuer(): string;
  /** issuer + '/mcp'. */
  resource(): string;
}

export type ClientKind = 'registered' | 'metadata-document';

export interface OAuthClientView {
  clientId: string;
  kind: ClientKind;
  name: string;
  /** client_uri from the registration or document, if any. */
  uri: string | null;
  logoUri: string | null;
  redirectUris: string[];
  tokenEndpointAuthMethod: 'none' | 'client_secret_post' | 'client_secret_basic';
}

/** RFC 7591 response body (snake_case, as sent). */
export interface RegistrationResponse {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: number;
  client_name: string;
  client_uri?: string;
  logo_uri?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  scope: string;
}

/** Too many registrations from one address (OAUTH_REGISTRATIONS_PER_HOUR): 429 with Retry-After. */
export interface RegistrationLimited {
  ok: false;
  error: 'invalid_request';
  description: string;
  status: 429;
  retryAfterSeconds: number;
}

export type RegistrationResult =
  { ok: true; registration: RegistrationResponse } | OAuthRefusal | RegistrationLimited;

/** Who registers: the client's address (behind TRUSTED_PROXIES, the one the proxy names). */
export interface RegistrationSource {
  address: string;
}

/**
 * The query of GET /oauth/authorize. A refusal with `redirect: false` is answered as JSON on the spot (the
 * client or redirect_uri cannot be trusted); one with a `redirectTo` is sent back to the client's redirect_uri.
 */
export type AuthorizationStart =
  | { ok: true; requestId: string }
  | (OAuthRefusal & { redirectTo?: undefined })
  | { ok: false; error: OAuthErrorCode; description: string; redirectTo: string };

/** What the consent page shows. */
export interface AuthorizationRequestView {
  id: string;
  client: Pick<OAuthClientView, 'clientId' | 'kind' | 'name' | 'uri' | 'logoUri'>;
  redirectUri: string;
  /** host[:port] of redirectUri, or the scheme for a private-use scheme (cursor:). */
  redirectHost: string;
  scope: string;
  resource: string;
  workspace: { id: string; name: string };
  /** The key the grant will be bound to: the one behind the person's session or header. */
  approver: { keyId: string; keyLabel: string };
  expiresAt: Date;
}

export type Decision = 'approve' | 'deny';

/** Client authentication as presented at the token/revocation endpoint (Basic header or form fields). */
export interface PresentedClient {
  clientId: string | undefined;
  clientSecret: string | undefined;
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
}

/** RFC 6749 §5.1 body. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export type TokenResult = { ok: true; tokens: TokenResponse } | (OAuthRefusal & { clientId?: string });

export type AccessTokenAuth =
  | {
      ok: true;
      principal: Principal;
      grantId: string;
      clientId: string;
      scopes: string[];
      resource: string;
      expiresAt: Date;
    }
  | {
      ok: false;
      reason: 'unknown' | 'expired' | 'revoked' | 'wrong-audience' | 'key-revoked' | 'key-expired';
    };

/** A connected client as the dashboard lists it. */
export interface GrantView {
  id: string;
  client: Pick<OAuthClientView, 'clientId' | 'kind' | 'name' | 'uri'>;
  redirectHost: string;
  scope: string;
  keyId: string;
  keyLabel: string;
  createdAt: Date;
  /** The last time one of its tokens was issued or used on /mcp; null until then. */
  lastUsedAt: Date | null;
}

/** What fetching a client ID metadata document gave (clientMetadataFetch.ts). */
export type FetchedDocument =
  | { ok: true; document: unknown; fetchedAt: Date; maxAgeSeconds: number }
  | { ok: false; description: string };

export interface ClientMetadataFetcher {
  /** Fetches (or answers from cache) the JSON document at an https URL; never throws. */
  fetch(url: string): Promise<FetchedDocument>;
}
