// extract_from_body: links, regex matches, JSON path values, header values or the text of an email or request.
import { z } from 'zod';
import { emailItemOf, extractFromBody as extract, requestItemOf } from '../../core/extract/index.ts';
import { defineTool } from '../toolkit.ts';
import { textMax, uuid } from '../../core/schemas.ts';
import { hint, sandboxId } from './common.ts';
import { ID_NAMES } from './coreArgs.ts';
import { resolveItem } from './itemRef.ts';

export const extractFromBody = defineTool({
  name: 'extract_from_body',
  title: 'Extract values from a body',
  description:
    'Pulls values out of an email (default: the newest) or a captured request. mode: links (every link with ' +
    'its kind), regex (RE2 pattern; group 1 if present), json_path (e.g. $.data.token, $.items[*].id), header ' +
    '(pattern = header name), text (the whole text).',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    email_id: uuid.optional().describe('The email to read; default the newest.'),
    request_id: uuid.optional().describe('A captured request to read instead of an email.'),
    mode: z.enum(['links', 'regex', 'json_path', 'header', 'text']),
    pattern: textMax(1024).optional().describe('The regex, JSON path or header name, depending on mode.'),
    part: z
      .enum(['text', 'html', 'subject'])
      .optional()
      .describe('For emails: which part to read (default text).'),
  }),
  outputSchema: z.object({
    status: z.enum(['found', 'not_found']),
    matches: z.array(
      z.object({
        value: z.string(),
        context: z.string().nullable(),
        kind: z.enum(['verify', 'reset', 'magic_login', 'invite', 'unsubscribe', 'other']).optional(),
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
    const source = item.kind === 'email' ? emailItemOf(item.email) : requestItemOf(item.request);
    const result = extract(source, {
      mode: args.mode,
      ...(args.pattern === undefined ? {} : { pattern: args.pattern }),
      ...(args.part === undefined ? {} : { part: args.part }),
    });
    return {
      ...result,
      email_id: item.kind === 'email' ? item.email.id : null,
      request_id: item.kind === 'request' ? item.request.id : null,
      hint:
        result.status === 'found'
          ? `${result.matches.length} match(es).`
          : 'Nothing matched: try mode "text" to see the content, or another pattern.',
    };
  },
});
