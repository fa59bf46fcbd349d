// set_smtp_faults: replaces the fault script both SMTP ports apply to a sandbox's sessions (issue 40).
import { z } from 'zod';
import { MAX_SMTP_FAULT_STEPS, smtpFaultStepInput } from '../../core/smtpFaults/script.ts';
import type { SmtpFaultStepView } from '../../core/smtpFaults/types.ts';
import { defineTool } from '../toolkit.ts';
import { hint, sandboxId } from './common.ts';
import { coreFields, ID_NAMES, invert, toCore } from './coreArgs.ts';

const STEP_ARGS = {
  stage: 'stage',
  match: 'match',
  reply: 'reply',
  delay_ms: 'delayMs',
  drop: 'drop',
  accept: 'accept',
  times: 'times',
  probability: 'probability',
} as const;

const fields = coreFields(smtpFaultStepInput.shape, STEP_ARGS);

// Field descriptions stay out of tools/list (its size is budgeted): the tool's description names what they mean.
const step = z.object({
  stage: fields.stage,
  match: fields.match,
  reply: fields.reply,
  delay_ms: fields.delay_ms,
  drop: fields.drop,
  accept: fields.accept,
  times: fields.times,
  probability: fields.probability,
});

const stepView = z.object({
  stage: z.string(),
  match: z.string().optional(),
  reply: z.object({ code: z.number(), text: z.string() }).optional(),
  delay_ms: z.number().optional(),
  drop: z.boolean().optional(),
  accept: z.boolean().optional(),
  times: z.number().optional(),
  probability: z.number().optional(),
  remaining: z.number().nullable().describe('Matches left of times; null: unlimited.'),
});

const toView = (s: SmtpFaultStepView): z.input<typeof stepView> => {
  const { delayMs, ...rest } = s;
  return delayMs === undefined ? rest : { ...rest, delay_ms: delayMs };
};

export const setSmtpFaults = defineTool({
  name: 'set_smtp_faults',
  title: 'Set SMTP faults',
  description:
    "Replaces a sandbox's SMTP fault script ([] clears). Per stage the first matching step does one of: reply " +
    '(4xx/5xx), delay_ms (tarpit), drop, accept; match: rcpt pattern (*@x.com); times: next N matches only.',
  inputSchema: z.object({
    sandbox_id: sandboxId,
    faults: z.array(step).max(MAX_SMTP_FAULT_STEPS, `at most ${MAX_SMTP_FAULT_STEPS} steps per sandbox`),
  }),
  outputSchema: z.object({ sandbox_id: z.string(), faults: z.array(stepView), hint }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  coreNames: { ...ID_NAMES, ...invert(STEP_ARGS) },
  async handler(args, { backend }) {
    const saved = await backend.setSmtpFaults(args.sandbox_id, {
      faults: args.faults.map((f) => toCore(f, STEP_ARGS)),
    });
    return {
      sandbox_id: args.sandbox_id,
      faults: saved.map(toView),
      hint:
        saved.length === 0
          ? 'No faults: both SMTP ports answer as usual.'
          : 'Send mail now; list_smtp_sessions shows each session, the step that applied and the reply.',
    };
  },
});
