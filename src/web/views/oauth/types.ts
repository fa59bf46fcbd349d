// The consent and connected-apps API bodies (GET/POST /oauth/authorizations/{id}, GET/DELETE /oauth/grants),
// from the OpenAPI schema: dates arrive as ISO strings.
import type { Schemas } from '../../api.ts';

export type AuthorizationRequestView = Schemas['OAuthAuthorizationRequest'];
export type Decision = Schemas['OAuthDecision']['decision'];
export type Grant = Schemas['OAuthGrant'];
export type ClientKind = Schemas['OAuthClient']['kind'];
