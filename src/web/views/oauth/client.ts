// How the dashboard names where an OAuth client's identity comes from: nobody vouches for a self-registered
// client's name, while a metadata document's client is whoever controls the host serving it.
import type { ClientKind } from './types.ts';

/** The host of a metadata document client id (an https URL); the id itself if it is not one. */
export function documentHost(clientId: string): string {
  try {
    return new URL(clientId).host || clientId;
  } catch {
    return clientId;
  }
}

/** Short label for lists. */
export function clientKindLabel(kind: ClientKind): string {
  return kind === 'metadata-document' ? 'metadata document' : 'self-registered';
}
