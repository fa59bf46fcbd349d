// Provider-API capture (issue 37): a send through SendGrid's, Postmark's, Resend's, Mailgun's or SES's HTTP API
// becomes an ordinary Message. The key selects the sandbox as SMTP AUTH does; each mail is built as MIME and goes
// through the one ingest path (same limits, events, waits, extraction), committed before the adapter answers.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import libmime from 'libmime';
import type { Clock } from '../../clock.ts';
import type { FieldError } from '../../errors.ts';
import type { RateLimits } from '../../rateLimits.ts';
import { UUID_PATTERN } from '../../random.ts';
import { findLiveSandboxByPasswordDigest } from '../../store/repos/providerKeys.ts';
import { findLiveSandboxById } from '../../store/repos/sandboxes.ts';
import type { Database } from '../../store/schema.ts';
import type { createMailIngest } from '../ingest.ts';

type MailIngest = ReturnType<typeof createMailIngest>;
import type { MailTarget, SmtpAccess } from '../smtpAccess.ts';
import { composeProviderMail, PROVIDER_HEADER_PREFIX } from './compose.ts';
import { isValidAddress, type ProviderMail, type ProviderName } from './providerMail.ts';

/** The SMTP listeners' SIZE limit (src/smtp/captureServer.ts): the same message is refused on either door. */
export const MAX_PROVIDER_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Recipients of one message at most (SendGrid's per-request limit; others allow fewer). */
export const MAX_PROVIDER_RECIPIENTS = 1000;

/**
 * One key (SendGrid, Postmark, Resend: the smtpPassword), a pair (Mailgun: `api` and the smtpPassword), or a
 * signed request (SES: SigV4 with the smtpUsername as access key id), whose `verify` recomputes the signature
 * with the sandbox's smtpPassword as the secret key; the secret never leaves this module otherwise.
 */
export type ProviderCredential =
  | { key: string }
  | { username: string; password: string }
  | { username: string; verify: (secret: string) => Promise<boolean> };

export type ProviderRefusal =
  | { reason: 'unauthorized' }
  | { reason: 'rate_limited'; retryAfterSeconds: number }
  | { reason: 'invalid'; errors: FieldError[] }
  | { reason: 'too_large'; limitBytes: number };

export type ProviderAuth = { ok: true; target: MailTarget } | ({ ok: false } & ProviderRefusal);
export type ProviderSendResult = { ok: true; messageIds: string[] } | ({ ok: false } & ProviderRefusal);

/** Stands in for the secret of an access key id no sandbox has (not base62, so no sandbox's password). */
const UNKNOWN_SECRET = '-'.repeat(32);
/** Stored passwords are base62 (random.ts); anything else cannot match and never reaches the store. */
const KEY_SHAPE = /^[A-Za-z0-9]{1,128}$/;
/** Set from the request's own fields; a custom header of the same name would contradict them. */
const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'subject',
  'content-type',
  'content-transfer-encoding',
  'mime-version',
]);
const HEADER_NAME = /^[!-9;-~]{1,100}$/;
const CONTENT_ID = /^[^\s<>]{1,250}$/;

/**
 * The `X-Sandtrap-Provider*` lines put in front of a message the sender built: values on one line (a line break
 * in a tag cannot start a header of its own) and non-ASCII as encoded words, folded as RFC 5322 asks.
 */
function providerHeaderBlock(provider: ProviderName, fields: Array<[string, string]>): string {
  const lines = [
    [PROVIDER_HEADER_PREFIX, provider] as const,
    ...fields.map(([n, v]) => [`${PROVIDER_HEADER_PREFIX}-${n}`, v] as const),
  ];
  return lines
    .map(
      ([name, value]) =>
        `${libmime.foldLines(`${name}: ${libmime.encodeWords(value.replace(/[\r\n]+/g, ' '), 'Q', 52)}`, 76)}\r\n`,
    )
    .join('');
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function validate(mails: ProviderMail[]): FieldError[] {
  const errors: FieldError[] = [];
  mails.forEach((mail, i) => {
    const at = (field: string) => (mails.length > 1 ? `[${i}].${field}` : field);
    if (!isValidAddress(mail.from.address))
      errors.push({ path: at('from'), message: `"${mail.from.address}" is not a valid email address` });
    const recipients = [...mail.to, ...mail.cc, ...mail.bcc];
    if (recipients.length === 0)
      errors.push({ path: at('to'), message: 'at least one recipient is required' });
    if (recipients.length > MAX_PROVIDER_RECIPIENTS)
      errors.push({ path: at('to'), message: `at most ${MAX_PROVIDER_RECIPIENTS} recipients per message` });
    for (const [field, list] of [
      ['to', mail.to],
      ['cc', mail.cc],
      ['bcc', mail.bcc],
      ['replyTo', mail.replyTo],
    ] as const) {
      const bad = list.find((a) => !isValidAddress(a.address));
      if (bad !== undefined)
        errors.push({ path: at(field), message: `"${bad.address}" is not a valid email address` });
    }
    for (const [name] of mail.headers) {
      if (!HEADER_NAME.test(name))
        errors.push({ path: at(`headers.${name}`), message: 'not a valid header name' });
      else if (RESERVED_HEADERS.has(name.toLowerCase()))
        errors.push({
          path: at(`headers.${name}`),
          message: `${name} is set from its own field, not as a header`,
        });
    }
    mail.attachments.forEach((a, j) => {
      if (a.filename === '')
        errors.push({ path: at(`attachments[${j}].filename`), message: 'a file name is required' });
      if (a.contentId !== undefined && !CONTENT_ID.test(a.contentId))
        errors.push({ path: at(`attachments[${j}].content_id`), message: 'not a valid content id' });
    });
  });
  return errors;
}

export function createProviderMailService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  limits: RateLimits;
  access: SmtpAccess;
  ingestMail: MailIngest;
}) {
  const { db, clock, limits, access, ingestMail } = deps;

  async function lookUp(credential: ProviderCredential): Promise<MailTarget | undefined> {
    if ('verify' in credential) return signedBy(credential.username, credential.verify);
    if ('username' in credential) return access.authenticate(credential.username, credential.password);
    if (!KEY_SHAPE.test(credential.key)) return undefined;
    const digest = createHash('sha256').update(credential.key).digest();
    const row = await findLiveSandboxByPasswordDigest(db, digest, clock.now());
    if (row === undefined || !sameSecret(credential.key, row.smtp_password)) return undefined;
    return { sandboxId: row.id, workspaceId: row.workspace_id };
  }

  /**
   * The sandbox whose id signed the request. An unknown id still costs one signature check (against a secret
   * no sandbox has), so the answer's timing does not tell whether the sandbox exists.
   */
  async function signedBy(
    username: string,
    verify: (secret: string) => Promise<boolean>,
  ): Promise<MailTarget | undefined> {
    const id = username.trim().toLowerCase();
    const row = UUID_PATTERN.test(id) ? await findLiveSandboxById(db, id, clock.now()) : undefined;
    const valid = await verify(row?.smtp_password ?? UNKNOWN_SECRET);
    return row !== undefined && valid ? { sandboxId: row.id, workspaceId: row.workspace_id } : undefined;
  }

  /** Gives back what a refused request counted, so a refusal spends no budget. */
  async function countAgainstLimits(
    ip: string,
    target: MailTarget,
    n: number,
  ): Promise<ProviderRefusal | null> {
    const spent: Array<() => Promise<void>> = [];
    for (let i = 0; i < n; i++) {
      for (const [limiter, key] of [
        [limits.smtpMessagesPerIp, ip],
        [limits.smtpMessagesPerWorkspace, target.workspaceId],
      ] as const) {
        const res = await limiter.consume(key);
        if (!res.ok) {
          await Promise.all(spent.map((refund) => refund()));
          return { reason: 'rate_limited', retryAfterSeconds: res.retryAfterSeconds };
        }
        spent.push(() => limiter.refund(key));
      }
    }
    return null;
  }

  return {
    /**
     * The sandbox a provider key selects. Every "no" is the same `unauthorized`, whether the sandbox exists or
     * not; failures count against the SMTP AUTH failure limit of the address.
     */
    async authenticate(ip: string, credential: ProviderCredential): Promise<ProviderAuth> {
      const failureKey = `${ip}|provider-api`;
      const throttled = await limits.smtpAuthFailures.check(failureKey);
      if (!throttled.ok)
        return { ok: false, reason: 'rate_limited', retryAfterSeconds: throttled.retryAfterSeconds };
      const target = await lookUp(credential);
      if (target !== undefined) return { ok: true, target };
      await limits.smtpAuthFailures.consume(failureKey);
      return { ok: false, reason: 'unauthorized' };
    },

    /**
     * Stores each mail as a Message of the target sandbox, all checked before any is stored: a refused request
     * stores nothing. Resolves once every message is committed; ids in the order of `mails`.
     */
    async send(input: {
      provider: ProviderName;
      target: MailTarget;
      ip: string;
      mails: ProviderMail[];
    }): Promise<ProviderSendResult> {
      const errors = validate(input.mails);
      if (errors.length > 0) return { ok: false, reason: 'invalid', errors };
      const now = clock.now();
      const raws = await Promise.all(
        input.mails.map((mail) => composeProviderMail(input.provider, mail, now)),
      );
      if (raws.some((raw) => raw.byteLength > MAX_PROVIDER_MESSAGE_BYTES))
        return { ok: false, reason: 'too_large', limitBytes: MAX_PROVIDER_MESSAGE_BYTES };
      const limited = await countAgainstLimits(input.ip, input.target, input.mails.length);
      if (limited !== null) return { ok: false, ...limited };
      const results = await Promise.all(
        input.mails.map((mail, i) => {
          const recipients = [...mail.to, ...mail.cc, ...mail.bcc].map((a) => a.address);
          return ingestMail({
            raw: raws[i] as Buffer,
            envelopeFrom: mail.from.address,
            deliveries: [{ sandboxId: input.target.sandboxId, capturedFor: [...new Set(recipients)] }],
          });
        }),
      );
      // The sandbox was deleted or expired since the key was checked: the key no longer selects anything.
      if (results.some((r) => r.stored.length === 0)) return { ok: false, reason: 'unauthorized' };
      return { ok: true, messageIds: results.map((r) => (r.stored[0] as { messageId: string }).messageId) };
    },

    /**
     * A message the sender built itself (Mailgun's messages.mime, SES Raw content), stored as sent with an
     * `X-Sandtrap-Provider` header in front; `recipients` are the envelope's, as given beside it.
     */
    async sendMime(input: {
      provider: ProviderName;
      target: MailTarget;
      ip: string;
      raw: Buffer;
      recipients: string[];
      /** The provider's tags and options sent beside the message (SES EmailTags), as with composed mail. */
      providerFields?: Array<[name: string, value: string]>;
    }): Promise<ProviderSendResult> {
      const bad = input.recipients.find((r) => !isValidAddress(r));
      if (
        input.recipients.length === 0 ||
        input.recipients.length > MAX_PROVIDER_RECIPIENTS ||
        bad !== undefined
      )
        return {
          ok: false,
          reason: 'invalid',
          errors: [
            {
              path: 'to',
              message:
                bad === undefined
                  ? `between 1 and ${MAX_PROVIDER_RECIPIENTS} recipients are required`
                  : `"${bad}" is not a valid email address`,
            },
          ],
        };
      const raw = Buffer.concat([
        Buffer.from(providerHeaderBlock(input.provider, input.providerFields ?? [])),
        input.raw,
      ]);
      if (raw.byteLength > MAX_PROVIDER_MESSAGE_BYTES)
        return { ok: false, reason: 'too_large', limitBytes: MAX_PROVIDER_MESSAGE_BYTES };
      const limited = await countAgainstLimits(input.ip, input.target, 1);
      if (limited !== null) return { ok: false, ...limited };
      const result = await ingestMail({
        raw,
        envelopeFrom: null,
        deliveries: [{ sandboxId: input.target.sandboxId, capturedFor: [...new Set(input.recipients)] }],
      });
      const stored = result.stored[0];
      return stored === undefined
        ? { ok: false, reason: 'unauthorized' }
        : { ok: true, messageIds: [stored.messageId] };
    },
  };
}
