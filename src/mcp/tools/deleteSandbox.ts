// delete_sandbox: removes a sandbox and both of its capture streams.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { hint, sandboxId } from './common.ts';
import { ID_NAMES } from './coreArgs.ts';

export const deleteSandbox = defineTool({
  name: 'delete_sandbox',
  title: 'Delete a sandbox',
  description:
    'Deletes the sandbox with all its captured emails and requests; its credentials stop working at once.',
  inputSchema: z.object({ sandbox_id: sandboxId }),
  outputSchema: z.object({ deleted: z.boolean(), sandbox_id: z.string(), hint }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  coreNames: ID_NAMES,
  async handler(args, { backend }) {
    await backend.deleteSandbox(args.sandbox_id);
    return { deleted: true, sandbox_id: args.sandbox_id, hint: 'Gone. create_sandbox makes a new one.' };
  },
});
