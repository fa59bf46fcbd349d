// A typed client for a running sandtrap server, built on openapi-fetch and the generated OpenAPI types.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../openapi/schema.d.ts';

export type { components, paths } from '../../openapi/schema.d.ts';
/** The typed client, and the server address it was made for (errors name it). */
export type SandtrapClient = Client<paths> & { readonly serverUrl: string };

export interface ClientOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8025 (with or without /api/v1). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
}

export function createSandtrapClient({ baseUrl, apiKey, fetch: fetchImpl }: ClientOptions): SandtrapClient {
  const root = baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  const client = createClient<paths>({
    baseUrl: `${root}/api/v1`,
    headers: { Authorization: `Bearer ${apiKey}` },
    ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
  });
  return Object.assign(client, { serverUrl: root });
}

export {
  EventStream,
  EventStreamError,
  streamEvents,
  type EventStreamOptions,
  type LiveEvent,
} from './events.ts';
