// The signed-in session: the server's cookie is the credential; this only holds what the server said about it.
import { client, ok, type Schemas } from './api.ts';

/** The body of GET/POST /api/v1/session. */
export type SessionInfo = Schemas['Session'];

export function fetchSession(): Promise<SessionInfo> {
  return ok(client.GET('/session'));
}

export function signIn(apiKey: string): Promise<SessionInfo> {
  return ok(client.POST('/session', { body: { apiKey } }));
}

export async function signOut(): Promise<void> {
  await client.DELETE('/session');
}
