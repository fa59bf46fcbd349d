// The shapes of SMTP fault scripts (issue 40): a step as stored and returned, and one entry of a session's log.

/** SMTP stages a step can match, in the order a session passes them. */
export const SMTP_FAULT_STAGES = ['connect', 'ehlo', 'auth', 'mail', 'rcpt', 'data', 'after-data'] as const;
export type SmtpFaultStage = (typeof SMTP_FAULT_STAGES)[number];

export type SmtpFaultAction = 'reply' | 'delay' | 'drop' | 'accept';

/** One step, as saved: a stage, an optional recipient pattern (rcpt only) and exactly one action. */
export interface SmtpFaultStep {
  stage: SmtpFaultStage;
  /** rcpt only: `*` matches any run of characters, compared without case (`*@example.com`). */
  match?: string;
  reply?: { code: number; text: string };
  delayMs?: number;
  drop?: true;
  accept?: true;
  /** Applies to the next N matches, then falls through to later steps; absent: every match. */
  times?: number;
  /** 0 < p <= 1: the chance a match applies; absent: always. */
  probability?: number;
}

/** A step as the API returns it: what was saved, plus how many matches it has left. */
export type SmtpFaultStepView = SmtpFaultStep & { remaining: number | null };

/** What happened at one stage of a session, for the sandbox that owns the log. */
export interface SmtpSessionEvent {
  stage: SmtpFaultStage;
  at: string;
  /** The step that applied (its index in the list as saved), or null when none did. */
  fault: { index: number; action: SmtpFaultAction } | null;
  /** The reply the client got; null when the connection was dropped instead. */
  reply: { code: number; text: string } | null;
  /** Set on connect and ehlo: they happened before the sandbox was known, and were judged later (README). */
  deferred?: true;
}

export interface SmtpSession {
  id: string;
  listener: 'submission' | 'inbound';
  remoteAddress: string | null;
  startedAt: Date;
  endedAt: Date | null;
  events: SmtpSessionEvent[];
}

export const actionOf = (step: SmtpFaultStep): SmtpFaultAction =>
  step.reply !== undefined ? 'reply' : step.delayMs !== undefined ? 'delay' : step.drop ? 'drop' : 'accept';
