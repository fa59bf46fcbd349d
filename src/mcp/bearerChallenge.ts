// The WWW-Authenticate challenge of /mcp's 401s (RFC 6750 §3, RFC 9728 §5.1): with OAuth on it names the
// Protected Resource Metadata document and the scope, so an MCP client can discover the authorization server.
import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/server';
import { MCP_SCOPE, type OAuthUrls } from '../core/oauth/types.ts';

/** RFC 9110 quoted-string: a backslash before `"` and `\`; other characters kept printable. */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, ' ').replace(/["\\]/g, '\\$&')}"`;
}

/**
 * The challenge for a refused request: `sent` says whether a credential came (then error="invalid_token" and
 * the description). `urls` is undefined when OAuth is off, which keeps the API-key-only challenge.
 */
export function bearerChallenge(urls: OAuthUrls | undefined, sent: boolean, description: string): string {
  const params: string[] = [];
  if (urls === undefined) params.push('realm="sandtrap"');
  else {
    const metadata = getOAuthProtectedResourceMetadataUrl(new URL(urls.resource()));
    params.push(`resource_metadata=${quoted(metadata)}`, `scope=${quoted(MCP_SCOPE)}`);
  }
  if (sent) params.push('error="invalid_token"');
  if (sent && urls !== undefined) params.push(`error_description=${quoted(description)}`);
  return `Bearer ${params.join(', ')}`;
}
