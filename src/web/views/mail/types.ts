// The mail shapes the views read, from the OpenAPI schema.
import type { components } from '../../../../openapi/schema.d.ts';

type Schemas = components['schemas'];
export type MessageSummary = Schemas['MessageSummary'];

export type MessageDetail = Schemas['MessageDetail'];
export type MessageLink = Schemas['ExtractedLink'];

export interface MailFilters {
  q: string;
  unreadOnly: boolean;
  to: string;
}

/** Whether a live arrival belongs in a list read with these filters, as the API's own filters would say. */
export function matchesFilters(m: MessageSummary, f: MailFilters): boolean {
  if (f.unreadOnly && m.isRead) return false;
  const to = f.to.trim().toLowerCase();
  if (to !== '' && !m.capturedFor.some((a) => a.toLowerCase() === to)) return false;
  const q = f.q.trim().toLowerCase();
  if (q === '') return true;
  const fields = [m.subject ?? '', m.from, ...m.to, m.preview ?? '', ...m.capturedFor];
  return fields.some((field) => field.toLowerCase().includes(q));
}

export function messagesPath(sandboxId: string): string {
  return `/sandboxes/${encodeURIComponent(sandboxId)}/messages`;
}

export function messagePath(sandboxId: string, messageId: string): string {
  return `${messagesPath(sandboxId)}/${encodeURIComponent(messageId)}`;
}
