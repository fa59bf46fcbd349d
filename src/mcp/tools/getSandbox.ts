// get_sandbox: one sandbox with its credentials, addresses and mock rules.
import { z } from 'zod';
import { defineTool } from '../toolkit.ts';
import { sandboxSchema, sandboxView } from '../views.ts';
import { hint, sandboxId } from './common.ts';
import { ID_NAMES } from './coreArgs.ts';

export const getSandbox = defineTool({
  name: 'get_sandbox',
  title: 'Get a sandbox',
  description: 'Returns a sandbox: SMTP settings, email address, capture URL, expiry and mock rules.',
  inputSchema: z.object({ sandbox_id: sandboxId }),
  outputSchema: sandboxSchema.extend({ hint }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: ID_NAMES,
  async handler(args, { backend }) {
    const sandbox = await backend.getSandbox(args.sandbox_id);
    return {
      ...sandboxView(sandbox),
      hint: 'Use wait_for_email or wait_for_request.',
    };
  },
});
