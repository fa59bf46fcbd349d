// Whether an SMTP command may go on, decided in one call per command as core.capture.admit() decides for HTTP:
// who logs in, who may start a message and which sandbox a recipient reaches, under the SMTP rate limits.
// The adapter turns a refusal into its reply (src/smtp/replies.ts).
import type { RateLimits } from '../rateLimits.ts';
import type { CatchAll } from './catchAll.ts';
import type { MailTarget, SmtpAccess } from './smtpAccess.ts';

/** Failed logins one connection may make; the last one closes it. */
export const MAX_AUTH_FAILURES_PER_CONNECTION = 3;

export type SmtpFacts =
  | {
      stage: 'auth';
      ip: string;
      username: string;
      password: string;
      /** Logins this connection already failed. */
      failedOnConnection: number;
    }
  | {
      stage: 'mail';
      ip: string;
      /** The sandbox the session logged in to (submission port); none on the inbound port. */
      login?: MailTarget;
    }
  | {
      stage: 'rcpt';
      address: string;
      /** Workspaces this transaction already counted against their inbound limit: each counts once. */
      counted: ReadonlySet<string>;
    };

export type SmtpRefusal =
  | { reason: 'login_throttled'; retryAfterSeconds: number }
  | { reason: 'login_failed'; failedOnConnection: number; closeConnection: boolean }
  | { reason: 'sandbox_gone' }
  | { reason: 'rate_limited'; retryAfterSeconds: number }
  | { reason: 'unknown_recipient'; address: string };

export type SmtpAdmission = { ok: true; target?: MailTarget } | ({ ok: false } & SmtpRefusal);

export function createSmtpAdmission(access: SmtpAccess, limits: RateLimits, catchAll: CatchAll) {
  async function login(facts: Extract<SmtpFacts, { stage: 'auth' }>): Promise<SmtpAdmission> {
    // Failures count per address AND username: a shared NAT or CI runner where someone mistyped another
    // sandbox's password must not lock out every sandbox from that address.
    const failureKey = `${facts.ip}|${facts.username.toLowerCase()}`;
    const throttled = await limits.smtpAuthFailures.check(failureKey);
    if (!throttled.ok)
      return { ok: false, reason: 'login_throttled', retryAfterSeconds: throttled.retryAfterSeconds };
    const target = await access.authenticate(facts.username, facts.password);
    if (target !== undefined) return { ok: true, target };
    await limits.smtpAuthFailures.consume(failureKey);
    const failedOnConnection = facts.failedOnConnection + 1;
    return {
      ok: false,
      reason: 'login_failed',
      failedOnConnection,
      closeConnection: failedOnConnection >= MAX_AUTH_FAILURES_PER_CONNECTION,
    };
  }

  async function sender(facts: Extract<SmtpFacts, { stage: 'mail' }>): Promise<SmtpAdmission> {
    if (facts.login !== undefined && !(await access.isLive(facts.login.sandboxId)))
      return { ok: false, reason: 'sandbox_gone' };
    const perIp = await limits.smtpMessagesPerIp.consume(facts.ip);
    if (!perIp.ok) return { ok: false, reason: 'rate_limited', retryAfterSeconds: perIp.retryAfterSeconds };
    if (facts.login !== undefined) {
      // Inbound mail counts against its own budget (recipient): strangers cannot spend this one.
      const perWorkspace = await limits.smtpMessagesPerWorkspace.consume(facts.login.workspaceId);
      if (!perWorkspace.ok)
        return { ok: false, reason: 'rate_limited', retryAfterSeconds: perWorkspace.retryAfterSeconds };
    }
    return { ok: true, target: facts.login };
  }

  async function recipient(facts: Extract<SmtpFacts, { stage: 'rcpt' }>): Promise<SmtpAdmission> {
    let target = await access.recipientTarget(facts.address);
    // Outside every sandbox's domain, the catch-all takes it; a sandbox's address that is gone stays refused.
    if (target === undefined && catchAll.enabled && !access.inCaptureDomain(facts.address))
      target = await catchAll.ensure();
    if (target === undefined) return { ok: false, reason: 'unknown_recipient', address: facts.address };
    if (!facts.counted.has(target.workspaceId)) {
      const perWorkspace = await limits.smtpInboundPerWorkspace.consume(target.workspaceId);
      if (!perWorkspace.ok)
        return { ok: false, reason: 'rate_limited', retryAfterSeconds: perWorkspace.retryAfterSeconds };
    }
    return { ok: true, target };
  }

  return {
    /** One SMTP command's admission: `target` is the sandbox logged in to (auth, mail) or reached (rcpt). */
    admit(facts: SmtpFacts): Promise<SmtpAdmission> {
      if (facts.stage === 'auth') return login(facts);
      if (facts.stage === 'mail') return sender(facts);
      return recipient(facts);
    },
  };
}

export type SmtpAdmissionService = ReturnType<typeof createSmtpAdmission>;
