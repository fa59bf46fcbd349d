// The signed-in session: the server's cookie is the credential; this only holds what the server said about it.
import { api } from './api.ts';

/** The body of GET/POST /api/v1/session. */
export interface SessionInfo {
  workspaceId: string;
  keyId: string;
  keyLabel: string;
  expiresAt: string;
}

export function fetchSession(): Promise<SessionInfo> {
  return api<SessionInfo>('GET', '/session');
}

export function signIn(apiKey: string): Promise<SessionInfo> {
  return api<SessionInfo>('POST', '/session', { apiKey });
}

export function signOut(): Promise<void> {
  return api<void>('DELETE', '/session');
}
