// extract_otp: the one-time code in an email (default: the newest) or a captured request, with ranked candidates.
import { z } from 'zod';
import { extractOtp as extract, otpInputOf } from '../../core/extract/index.ts';
import { defineTool } from '../toolkit.ts';
import { textMax, uuid } from '../../core/schemas.ts';
import { hint, ID_NAMES, sandboxId } from './common.ts';
import { resolveItem } from './itemRef.ts';

export const extractOtp = defineTool({
  name: 'extract_otp',
  title: 'Extract a one-time code',
  description:
    'Finds the verification / one-time code in an email (default: the newest in the sandbox) or in a captured ' +
    'request body. Returns the code with a confidence 0..1, where it was found, and up to 5 ranked candidates. ' +
    'Pass pattern (RE2 with one capture group) to override the heuristics.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    email_id: uuid.optional().describe('The email to read; default the newest.'),
    request_id: uuid.optional().describe('A captured request to read instead of an email.'),
    pattern: textMax(512).optional().describe('RE2 regex with exactly one capture group around the code.'),
  }),
  outputSchema: z.object({
    status: z.enum(['found', 'ambiguous', 'not_found']),
    code: z.string().nullable(),
    confidence: z.number(),
    source: z.string().nullable(),
    context: z.string().nullable(),
    candidates: z.array(
      z.object({
        code: z.string(),
        confidence: z.number(),
        source: z.string(),
        context: z.string().nullable(),
      }),
    ),
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
