// The discovery documents: Authorization Server Metadata (RFC 8414) and Protected Resource Metadata (RFC 9728),
// both derived from the issuer (PUBLIC_URL, or the loopback address the API listener took).
import { MCP_SCOPE, OFFLINE_ACCESS_SCOPE, type OAuthUrls } from './types.ts';

export function authorizationServerMetadata(urls: OAuthUrls): Record<string, unknown> {
  const issuer = urls.issuer();
  const authMethods = ['none', 'client_secret_post', 'client_secret_basic'];
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: [MCP_SCOPE, OFFLINE_ACCESS_SCOPE],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/api-docs`,
  };
}

export function protectedResourceMetadata(urls: OAuthUrls): Record<string, unknown> {
  return {
    resource: urls.resource(),
    authorization_servers: [urls.issuer()],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'sandtrap MCP server',
    resource_documentation: `${urls.issuer()}/api-docs`,
  };
}
