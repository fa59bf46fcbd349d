// Parsing and checking an SMTP fault script as saved (PUT .../smtp-faults, set_smtp_faults), and choosing the
// steps a stage may apply. A script that cannot work as written is refused with the field named.
import { z } from 'zod';
import { invalidInput, type FieldError } from '../errors.ts';
import { intField, textMax } from '../schemas.ts';
import { parseInput, zodErrors } from '../validation.ts';
import { SMTP_FAULT_STAGES, type SmtpFaultStage, type SmtpFaultStep } from './types.ts';

export const MAX_SMTP_FAULT_STEPS = 50;
/** Five minutes: longer than most clients wait for a reply, and the wait endpoints' ceiling. */
export const MAX_SMTP_FAULT_DELAY_MS = 300_000;

const replyText = textMax(400).refine(
  (v) => v.length > 0 && !/[\r\n]/.test(v),
  'must be one non-empty line (no CR or LF)',
);

export const smtpFaultStepInput = z.object({
  stage: z.enum(SMTP_FAULT_STAGES, {
    error: `must be one of ${SMTP_FAULT_STAGES.join(', ')}`,
  }),
  match: textMax(320)
    .refine((v) => v.length > 0 && !/\s/.test(v), 'must be a non-empty address pattern without spaces')
    .optional(),
  reply: z
    .object({
      code: intField(400, 599),
      text: replyText,
    })
    .optional(),
  delayMs: intField(1, MAX_SMTP_FAULT_DELAY_MS).optional(),
  drop: z.literal(true, { error: 'must be true (drop the connection) or left out' }).optional(),
  accept: z.literal(true, { error: 'must be true (answer as usual) or left out' }).optional(),
  times: intField(1, 1_000_000).optional(),
  probability: z.number().gt(0, 'must be above 0').max(1, 'must be at most 1').optional(),
});

/** The envelope only: each step is checked by `parseSmtpFaults` so every step's problems are reported together. */
export const smtpFaultsEnvelope = z.object({
  faults: z.array(z.unknown()).max(MAX_SMTP_FAULT_STEPS, `at most ${MAX_SMTP_FAULT_STEPS} steps per sandbox`),
});

/** `*` in a pattern matches any run of characters; the rest compares without case. Linear, no regex. */
export function addressMatches(pattern: string, address: string): boolean {
  const parts = pattern.toLowerCase().split('*');
  const value = address.toLowerCase();
  const first = parts[0] as string;
  if (parts.length === 1) return value === first;
  const last = parts[parts.length - 1] as string;
  if (!value.startsWith(first) || value.length < first.length + last.length || !value.endsWith(last))
    return false;
  let at = first.length;
  const end = value.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = value.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** Whether every address `later` matches is matched by `earlier` too (absent or `*` patterns match all). */
function covers(earlier: string | undefined, later: string | undefined): boolean {
  if (earlier === undefined || /^\*+$/.test(earlier)) return true;
  return later !== undefined && earlier.toLowerCase() === later.toLowerCase();
}

/** Parses a PUT body `{ faults: [...] }` into the steps to save, or refuses it naming each bad field. */
export function parseSmtpFaults(body: unknown): SmtpFaultStep[] {
  const { faults } = parseInput(smtpFaultsEnvelope, body, 'request body');
  const errors: FieldError[] = [];
  const steps: Array<SmtpFaultStep | undefined> = [];
  faults.forEach((raw, i) => {
    const at = `faults[${i}]`;
    const parsed = smtpFaultStepInput.safeParse(raw);
    if (!parsed.success) {
      errors.push(...zodErrors(parsed.error, ['faults', i]));
      steps.push(undefined);
      return;
    }
    const input = parsed.data;
    const actions = (['reply', 'delayMs', 'drop', 'accept'] as const).filter((k) => input[k] !== undefined);
    if (actions.length !== 1) {
      errors.push({
        path: actions.length === 0 ? at : `${at}.${actions[1]}`,
        message:
          actions.length === 0
            ? 'needs one action: reply {code, text}, delayMs, drop: true or accept: true'
            : `does one thing only; it already has ${actions[0]}`,
      });
    }
    if (input.match !== undefined && input.stage !== 'rcpt') {
      errors.push({
        path: `${at}.match`,
        message: `only rcpt steps match a recipient; a ${input.stage} step applies to every session of the sandbox`,
      });
    }
    const step: SmtpFaultStep = { stage: input.stage };
    if (input.match !== undefined) step.match = input.match;
    if (input.reply !== undefined) step.reply = input.reply;
    if (input.delayMs !== undefined) step.delayMs = input.delayMs;
    if (input.drop !== undefined) step.drop = true;
    if (input.accept !== undefined) step.accept = true;
    if (input.times !== undefined) step.times = input.times;
    if (input.probability !== undefined) step.probability = input.probability;
    // A step that always applies hides every later step of its stage that it covers.
    const shadow = steps.findIndex(
      (s) =>
        s !== undefined &&
        s.stage === step.stage &&
        s.times === undefined &&
        (s.probability === undefined || s.probability === 1) &&
        covers(s.match, step.match),
    );
    if (shadow >= 0) {
      errors.push({
        path: at,
        message:
          `can never match: faults[${shadow}] (${step.stage}) applies to every match first; ` +
          `give faults[${shadow}] "times", or put this step before it`,
      });
    }
    steps.push(step);
  });
  if (errors.length > 0)
    throw invalidInput('The fault script is invalid; see errors for each field.', errors);
  return steps as SmtpFaultStep[];
}

/** Indexes of the steps that may apply at `stage` (to `address` at rcpt), in list order. */
export function candidates(
  steps: readonly SmtpFaultStep[],
  stage: SmtpFaultStage,
  address?: string,
): number[] {
  const out: number[] = [];
  steps.forEach((s, i) => {
    if (s.stage !== stage) return;
    if (s.match !== undefined && (address === undefined || !addressMatches(s.match, address))) return;
    out.push(i);
  });
  return out;
}
