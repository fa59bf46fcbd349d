// list_smtp_sessions: what each SMTP session of a sandbox with a fault script went through, newest first.
import { z } from 'zod';
import { pageQuery } from '../../core/schemas.ts';
import { defineTool } from '../toolkit.ts';
import { hint, limit, nextCursor, sandboxId } from './common.ts';
import { ID_NAMES } from './coreArgs.ts';

const reply = z.object({ code: z.number(), text: z.string() }).nullable();

const session = z.object({
  id: z.string(),
  listener: z.enum(['submission', 'inbound']),
  remote_address: z.string().nullable(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  events: z.array(
    z.object({
      stage: z.string(),
      at: z.string(),
      fault: z.object({ index: z.number(), action: z.string() }).nullable(),
      reply: reply.describe('null: the connection was dropped.'),
      deferred: z.boolean().optional(),
    }),
  ),
});

export const listSmtpSessions = defineTool({
  name: 'list_smtp_sessions',
  title: 'List SMTP sessions',
  description:
    'SMTP sessions of a sandbox with a fault script, newest first: stages, step applied, reply sent.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    limit,
    cursor: pageQuery.shape.cursor.describe('next_cursor from the previous page.'),
  }),
  outputSchema: z.object({ sessions: z.array(session), next_cursor: nextCursor, hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: ID_NAMES,
  async handler(args, { backend }) {
    const page = await backend.listSmtpSessions(args.sandbox_id, { limit: args.limit, cursor: args.cursor });
    return {
      sessions: page.items.map((s) => ({
        id: s.id,
        listener: s.listener,
        remote_address: s.remoteAddress,
        started_at: s.startedAt.toISOString(),
        ended_at: s.endedAt?.toISOString() ?? null,
        events: s.events,
      })),
      next_cursor: page.nextCursor,
      hint:
        page.items.length === 0
          ? 'No sessions logged: only sessions of a sandbox with a script (set_smtp_faults) are kept.'
          : 'Each session is one connection; a retrying client shows as several.',
    };
  },
});
