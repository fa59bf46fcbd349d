// SMTP replies sandtrap sends itself: a code plus the enhanced status code in the text, and the mapping of
// core errors to replies. (smtp-server's automatic enhanced codes are off so ours are never doubled.)
import { isAppError } from '../core/errors.ts';
import type { SmtpRefusal } from '../core/mail/smtpAdmission.ts';

export interface SmtpReplyError extends Error {
  responseCode: number;
}

export function reply(code: number, enhanced: string, text: string): SmtpReplyError {
  const err = new Error(`${enhanced} ${text}`) as SmtpReplyError;
  err.responseCode = code;
  return err;
}

export const replies = {
  startTlsFirst: () => reply(530, '5.7.0', 'Must issue a STARTTLS command first'),
  authFailed: () =>
    reply(
      535,
      '5.7.8',
      'Authentication failed: the username is the sandbox id and the password its smtpPassword',
    ),
  tooManyAuthFailures: () => reply(421, '4.7.0', 'Too many failed logins; closing the connection'),
  authThrottled: (seconds: number) =>
    reply(421, '4.7.0', `Too many failed logins for this username from your address; retry in ${seconds} s`),
  tooManyConnections: (limit: number) =>
    reply(421, '4.7.0', `Too many connections from your address (at most ${limit} at once); retry later`),
  tooManyRecipients: (limit: number) =>
    reply(452, '4.5.3', `Too many recipients: at most ${limit} per message; send the rest in another`),
  rateLimited: (seconds: number) =>
    reply(421, '4.7.0', `Too many messages; nothing was kept, retry in ${seconds} s`),
  sandboxGone: () => reply(550, '5.7.1', 'The sandbox was deleted or has expired; nothing was kept'),
  unknownRecipient: (address: string, domain: string) =>
    reply(550, '5.1.1', `No sandbox receives mail for ${address}; use <anything>@<sandbox id>.${domain}`),
  tooBig: (limit: number) =>
    reply(552, '5.3.4', `Message exceeds the ${limit / (1024 * 1024)} MB limit; nothing was kept`),
  storeFailed: () =>
    reply(451, '4.3.0', 'Temporary failure storing the message; nothing was kept, retry later'),
  /** The store refuses for `reason` ("disk full in DATA_DIR", "the database is unreachable"). */
  storeRefused: (reason: string, seconds: number) =>
    reply(
      451,
      '4.3.0',
      `${reason.charAt(0).toUpperCase()}${reason.slice(1)}; nothing was kept, retry in ${seconds} s`,
    ),
};

/** A core failure during a transaction: never a 5xx that would make the sender drop the mail for good. */
export function fromCoreError(err: unknown): SmtpReplyError {
  if (isAppError(err) && err.code === 'rate_limited') return replies.rateLimited(err.retryAfterSeconds ?? 60);
  if (isAppError(err) && err.code === 'unavailable' && err.reason !== undefined)
    return replies.storeRefused(err.reason, err.retryAfterSeconds ?? 5);
  return replies.storeFailed();
}

/** The reply to a command core's admission refused (core/mail/smtpAdmission.ts). */
export function refusalReply(refusal: SmtpRefusal, captureDomain: string): SmtpReplyError {
  switch (refusal.reason) {
    case 'login_throttled':
      return replies.authThrottled(refusal.retryAfterSeconds);
    case 'login_failed':
      return refusal.closeConnection ? replies.tooManyAuthFailures() : replies.authFailed();
    case 'sandbox_gone':
      return replies.sandboxGone();
    case 'rate_limited':
      return replies.rateLimited(refusal.retryAfterSeconds);
    case 'unknown_recipient':
      return replies.unknownRecipient(refusal.address, captureDomain);
  }
}
