// Parameter schemas shared by several tools, with descriptions written for the agent that fills them in.
import { z } from 'zod';

export const sandboxId = z
  .string()
  .uuid('sandbox_id must be the UUID returned by create_sandbox or list_sandboxes')
  .describe('The sandbox id (from create_sandbox or list_sandboxes).');

export const timeoutSeconds = z
  .number()
  .int()
  .min(0)
  .max(300)
  .default(30)
  .describe('How long to wait, 0..300 seconds (default 30). 0 only checks what is already there.');

export const since = z
  .string()
  .datetime({ offset: true, message: 'since must be an ISO 8601 instant, e.g. 2026-01-31T12:00:00Z' })
  .optional()
  .describe('Only items received at or after this instant (ISO 8601). Use it when reusing a sandbox.');

export const after = z
  .string()
  .optional()
  .describe(
    'Only items newer than this: an email/request id you already handled, or an ISO instant. Prevents returning a stale code.',
  );

export const limit = z.number().int().min(1).max(200).default(20).describe('Page size, 1..200 (default 20).');
export const cursor = z.string().optional().describe('next_cursor from the previous page.');

export const hint = z.string().describe('What to do next.');
export const loose = z.looseObject({});
