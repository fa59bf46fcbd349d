// What is granted for a requested scope: mcp always, offline_access when asked for; scopes sandtrap does not
// know are left out rather than refused (RFC 6749 §3.3), since clients add their own (claudeai, openid).
import { MCP_SCOPE, OFFLINE_ACCESS_SCOPE } from './types.ts';

export function grantedScope(requested: string | undefined): string {
  const asked = new Set((requested ?? '').split(' '));
  return asked.has(OFFLINE_ACCESS_SCOPE) ? `${MCP_SCOPE} ${OFFLINE_ACCESS_SCOPE}` : MCP_SCOPE;
}
