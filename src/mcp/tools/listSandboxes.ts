// list_sandboxes: the workspace's sandboxes, newest first, optionally searched.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { sandboxSummarySchema, sandboxSummaryView } from '../views.ts';
import { listSandboxesQuery } from '../../core/schemas.ts';
import { hint, limit, nextCursor } from './common.ts';
import { coreFields, invert, PAGE_ARGS, toCore } from './coreArgs.ts';

const fields = coreFields(listSandboxesQuery.shape, PAGE_ARGS);

export const listSandboxes = defineTool({
  name: 'list_sandboxes',
  title: 'List sandboxes',
  description:
    'Lists the sandboxes of this workspace, newest first, without their SMTP passwords (get_sandbox has it).',
  inputSchema: z.object({
    query: fields.query.describe('Free text: name, id, tag keys and values.'),
    limit,
    cursor: fields.cursor.describe('next_cursor from the previous page.'),
  }),
  outputSchema: z.object({ sandboxes: z.array(sandboxSummarySchema), next_cursor: nextCursor, hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: invert(PAGE_ARGS),
  async handler(args, { backend }) {
    const page = await backend.listSandboxes(toCore(args, PAGE_ARGS));
    return {
      sandboxes: page.items.map(sandboxSummaryView),
      next_cursor: page.nextCursor,
      hint: page.nextCursor === null ? 'This is every match.' : 'Pass next_cursor as cursor for more.',
    };
  },
});
