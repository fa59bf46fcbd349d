// list_sandboxes: the workspace's sandboxes, newest first, optionally searched.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { sandboxView } from '../views.ts';
import { cursor, hint, limit, loose } from './common.ts';

export const listSandboxes = defineTool({
  name: 'list_sandboxes',
  title: 'List sandboxes',
  description:
    'Lists the sandboxes of this workspace, newest first. query matches name, id, tag keys and values.',
  inputSchema: z.object({ query: z.string().max(200).optional(), limit, cursor }),
  outputSchema: z.object({ sandboxes: z.array(loose), next_cursor: z.string().nullable(), hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handler(args, { backend }) {
    const page = await backend.listSandboxes({
      limit: args.limit,
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
      ...(args.query === undefined ? {} : { q: args.query }),
    });
    return {
      sandboxes: page.items.map(sandboxView),
      next_cursor: page.nextCursor,
      hint: page.nextCursor === null ? 'This is every match.' : 'Pass next_cursor as cursor for more.',
    };
  },
});
