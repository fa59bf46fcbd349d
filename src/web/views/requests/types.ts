// The request shapes the views read, from the OpenAPI schema, and the API paths of a sandbox's HTTP stream.
import type { components } from '../../../../openapi/schema.d.ts';

type Schemas = components['schemas'];
export type RequestSummary = Schemas['RequestSummary'];
export type RequestDetail = Schemas['RequestDetail'];
export type RequestPage = Schemas['RequestPage'];

export function requestsPath(sandboxId: string): string {
  return `/sandboxes/${encodeURIComponent(sandboxId)}/requests`;
}

export function requestPath(sandboxId: string, requestId: string): string {
  return `${requestsPath(sandboxId)}/${encodeURIComponent(requestId)}`;
}
