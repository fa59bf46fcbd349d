// The consent and connected-apps API bodies as the dashboard reads them (GET/POST /oauth/authorizations/{id},
// GET/DELETE /oauth/grants): dates arrive as ISO strings.
export type ClientKind = 'registered' | 'metadata-document';

export interface AuthorizationRequestView {
  id: string;
  client: { clientId: string; kind: ClientKind; name: string; uri: string | null; logoUri: string | null };
  redirectUri: string;
  /** host[:port] of the redirect URI, or the scheme of a private-use one (cursor:). */
  redirectHost: string;
  scope: string;
  resource: string;
  workspace: { id: string; name: string };
  approver: { keyId: string; keyLabel: string };
  expiresAt: string;
}

export interface DecisionResult {
  redirectTo: string;
}

export interface Grant {
  id: string;
  client: { clientId: string; kind: ClientKind; name: string; uri: string | null };
  redirectHost: string;
  scope: string;
  keyId: string;
  keyLabel: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface GrantPage {
  items: Grant[];
}
