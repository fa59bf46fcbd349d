// Which captured item an extraction tool reads: an email, a request, or by default the newest email.
import type { MessageDetail } from '../../core/messages.ts';
import type { RequestDetail } from '../../core/requests.ts';
import type { McpBackend } from '../backend.ts';
import { ToolError } from '../toolkit.ts';

export type ItemRef = { kind: 'email'; email: MessageDetail } | { kind: 'request'; request: RequestDetail };

export async function resolveItem(
  backend: McpBackend,
  sandboxId: string,
  ref: { email_id?: string | undefined; request_id?: string | undefined },
): Promise<ItemRef> {
  if (ref.email_id !== undefined && ref.request_id !== undefined) {
    throw new ToolError('INVALID_INPUT', 'Both email_id and request_id were given', 'Pass only one of them');
  }
  if (ref.request_id !== undefined)
    return { kind: 'request', request: await backend.getRequest(sandboxId, ref.request_id) };
  if (ref.email_id !== undefined)
    return { kind: 'email', email: await backend.getEmail(sandboxId, ref.email_id) };
  const newest = (await backend.listEmails(sandboxId, { limit: 1 })).items[0];
  if (newest === undefined) {
    throw new ToolError(
      'NOT_FOUND',
      'This sandbox has no email yet',
      'Call wait_for_email first (it also extracts the code), or pass request_id for a captured request',
    );
  }
  return { kind: 'email', email: await backend.getEmail(sandboxId, newest.id) };
}
