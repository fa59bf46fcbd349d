// The mail shapes the views read, from the OpenAPI schema.
import type { components } from '../../../../openapi/schema.d.ts';

type Schemas = components['schemas'];
export type MessageSummary = Schemas['MessageSummary'];
export type MessagePage = Schemas['MessagePage'];

export type LinkKind = 'verify' | 'reset' | 'magic_login' | 'unsubscribe' | 'other';
export interface MessageLink {
  url: string;
  text: string;
  kind: LinkKind;
}
export interface MessageOtp {
  code: string | null;
}

/**
 * The detail as the API sends it. `otp` and `links` are read only when the API sends them (the MCP view of an
 * email has them; the REST detail may not yet): the dashboard never guesses a code by itself.
 */
export type MessageDetail = Schemas['MessageDetail'] & {
  otp?: MessageOtp | null;
  links?: MessageLink[] | null;
};

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
