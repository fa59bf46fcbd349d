// extract_otp: the one-time code in an email (default: the newest) or a captured request, with ranked candidates.
import { z } from 'zod';
import { extractOtp as extract, otpInputOf } from '../../core/extract/index.ts';
import { defineTool } from '../toolkit.ts';
import { otpSchema } from '../views.ts';
import { textMax, uuid } from '../../core/schemas.ts';
import { hint, sandboxId } from './common.ts';
import { ID_NAMES } from './coreArgs.ts';
import { resolveItem } from './itemRef.ts';

export const extractOtp = defineTool({
  name: 'extract_otp',
  title: 'Extract a one-time code',
  description:
    'Finds the one-time code in an email (default: the newest) or a captured request body: the code as typed ' +
    '(no separators), its confidence 0..1, context and up to 5 candidates. pattern overrides the heuristics.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    email_id: uuid.optional().describe('The email to read; default the newest.'),
    request_id: uuid.optional().describe('A captured request to read instead of an email.'),
    pattern: textMax(512).optional().describe('RE2 regex with one capture group around the code.'),
  }),
  outputSchema: otpSchema.extend({
    email_id: z.string().nullable(),
    request_id: z.string().nullable(),
    hint,
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  coreNames: ID_NAMES,
  async handler(args, { backend }) {
    const item = await resolveItem(backend, args.sandbox_id, args);
    const input =
      item.kind === 'email'
        ? otpInputOf(item.email)
        : {
            subject: null,
            text: item.request.bodyEncoding === 'base64' ? null : item.request.body,
            html: null,
          };
    const result = extract(input, args.pattern === undefined ? {} : { pattern: args.pattern });
    const next =
      result.status === 'found'
        ? `Use ${result.code}.`
        : result.status === 'ambiguous'
          ? 'Several codes fit: pick from candidates by context, or pass a pattern.'
          : 'No code found: read the message with get_email, or pass a pattern.';
    return {
      ...result,
      email_id: item.kind === 'email' ? item.email.id : null,
      request_id: item.kind === 'request' ? item.request.id : null,
      hint: next,
    };
  },
});
