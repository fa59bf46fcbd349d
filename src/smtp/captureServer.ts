// The two SMTP listeners. Submission: STARTTLS, then AUTH with a sandbox's credentials, any recipient.
// Inbound: no AUTH, recipients must be <anything>@<sandbox id>.<CAPTURE_DOMAIN>. Both hand DATA to core's
// one ingest path and answer 250 only after it committed; both cap sessions per address, idle sessions and
// recipients per transaction.
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import type { Core } from '../core/core.ts';
import type { MailDelivery } from '../core/mail/ingest.ts';
import type { MailTarget } from '../core/mail/smtpAccess.ts';
import { createConnectionGuard } from './connectionGuard.ts';
import { readData } from './readData.ts';
import { fromCoreError, refusalReason, replies, type SmtpReplyError } from './replies.ts';
import type { TlsCredentials } from './tlsCredentials.ts';

export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
const MAX_AUTH_FAILURES_PER_CONNECTION = 3;
/** Recipients of one transaction; RFC 5321 4.5.3.1.8 asks servers to take at least 100. */
export const MAX_RECIPIENTS = 100;

type Callback = (err?: SmtpReplyError | null) => void;

export interface CaptureSmtpOptions {
  core: Core;
  logger: Logger;
  tls: TlsCredentials;
  mode: 'submission' | 'inbound';
  hostname: string;
}

export function createCaptureSmtpServer({
  core,
  logger,
  tls,
  mode,
  hostname,
}: CaptureSmtpOptions): SMTPServer {
  const log = logger.child({ listener: `smtp-${mode}` });
  const authFailures = new Map<string, number>();
  /** Inbound: the sandbox each accepted recipient belongs to (keys are smtp-server's address objects). */
  const recipientTargets = new WeakMap<SMTPServerAddress, MailTarget>();
  /** Inbound: workspaces already counted against their rate limit in the current transaction. */
  const countedWorkspaces = new WeakMap<object, Set<string>>();

  async function onAuth(
    auth: { username?: string | null; password?: string | null },
    session: SMTPServerSession,
  ): Promise<MailTarget> {
    if (!session.secure) throw replies.startTlsFirst();
    // Failures count per address AND username: a shared NAT or CI runner where someone mistyped another
    // sandbox's password must not lock out every sandbox from that address.
    const failureKey = `${session.remoteAddress}|${(auth.username ?? '').toLowerCase()}`;
    const throttled = await core.limits.smtpAuthFailures.check(failureKey);
    if (!throttled.ok) throw replies.authThrottled(throttled.retryAfterSeconds);
    const target = await core.smtpAccess.authenticate(auth.username ?? '', auth.password ?? '');
    if (target !== undefined) return target;
    await core.limits.smtpAuthFailures.consume(failureKey);
    const failures = (authFailures.get(session.id) ?? 0) + 1;
    authFailures.set(session.id, failures);
    log.info({ session: session.id, ip: session.remoteAddress, failures }, 'SMTP AUTH refused');
    throw failures >= MAX_AUTH_FAILURES_PER_CONNECTION ? replies.tooManyAuthFailures() : replies.authFailed();
  }

  async function onMailFrom(session: SMTPServerSession): Promise<void> {
    if (mode === 'submission') {
      const target = session.user as MailTarget;
      if (!(await core.smtpAccess.isLive(target.sandboxId))) throw replies.sandboxGone();
    }
    const perIp = await core.limits.smtpMessagesPerIp.consume(session.remoteAddress);
    if (!perIp.ok) throw replies.rateLimited(perIp.retryAfterSeconds);
    if (mode === 'submission') {
      // Inbound mail counts against its own budget (onRcptTo): strangers cannot spend this one.
      const perWorkspace = await core.limits.smtpMessagesPerWorkspace.consume(
        (session.user as MailTarget).workspaceId,
      );
      if (!perWorkspace.ok) throw replies.rateLimited(perWorkspace.retryAfterSeconds);
    }
  }

  async function onRcptTo(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    const rcpts = session.envelope.rcptTo;
    const lower = address.address.toLowerCase();
    // A repeated recipient replaces its earlier entry (smtp-server), so it never counts twice.
    if (rcpts.length >= MAX_RECIPIENTS && !rcpts.some((r) => r.address.toLowerCase() === lower)) {
      throw replies.tooManyRecipients(MAX_RECIPIENTS);
    }
    if (mode === 'submission') return; // the credential selects the sandbox; any valid address is known
    const target = await core.smtpAccess.recipientTarget(address.address);
    if (target === undefined) throw replies.unknownRecipient(address.address, core.config.captureDomain);
    let counted = countedWorkspaces.get(session.envelope);
    if (counted === undefined) countedWorkspaces.set(session.envelope, (counted = new Set()));
    if (!counted.has(target.workspaceId)) {
      const perWorkspace = await core.limits.smtpInboundPerWorkspace.consume(target.workspaceId);
      if (!perWorkspace.ok) throw replies.rateLimited(perWorkspace.retryAfterSeconds);
      counted.add(target.workspaceId);
    }
    recipientTargets.set(address, target);
  }

  function deliveries(session: SMTPServerSession): MailDelivery[] {
    const rcpts = session.envelope.rcptTo;
    if (mode === 'submission') {
      return [
        { sandboxId: (session.user as MailTarget).sandboxId, capturedFor: rcpts.map((r) => r.address) },
      ];
    }
    const bySandbox = new Map<string, string[]>();
    for (const rcpt of rcpts) {
      const target = recipientTargets.get(rcpt);
      if (target === undefined) continue;
      bySandbox.set(target.sandboxId, [...(bySandbox.get(target.sandboxId) ?? []), rcpt.address]);
    }
    return [...bySandbox].map(([sandboxId, capturedFor]) => ({ sandboxId, capturedFor }));
  }

  async function onData(
    stream: Parameters<NonNullable<SMTPServer['onData']>>[0],
    session: SMTPServerSession,
  ) {
    const raw = await readData(stream);
    if (raw === 'too-big') throw replies.tooBig(MAX_MESSAGE_BYTES);
    const mailFrom = session.envelope.mailFrom;
    // Read before ingest: ingest may hand `raw` to a parse worker, which empties the caller's view of it.
    const bytes = raw.length;
    let result;
    try {
      result = await core.ingestMail({
        raw,
        envelopeFrom: mailFrom === false ? null : mailFrom.address || null,
        deliveries: deliveries(session),
      });
    } catch (err) {
      const reason = refusalReason(err);
      if (reason !== undefined)
        log.warn({ err: (err as Error).message, session: session.id }, `message refused: ${reason}`);
      else log.error({ err, session: session.id }, 'storing a message failed');
      throw fromCoreError(err);
    }
    if (result.stored.length === 0) throw replies.sandboxGone();
    log.debug({ session: session.id, stored: result.stored, bytes }, 'message captured');
    return `2.6.0 Captured ${result.stored.map((s) => s.messageId).join(', ')}`;
  }

  const timeoutMs = core.config.smtpSocketTimeoutSeconds * 1000;
  const guard = createConnectionGuard({
    maxPerAddress: core.config.connectionsPerIp.smtp,
    idleMs: timeoutMs,
    onRefused: (ip) =>
      log.warn(
        { ip, limit: core.config.connectionsPerIp.smtp },
        'SMTP connections refused: too many at once from this address (SMTP_MAX_CONNECTIONS_PER_IP)',
      ),
    onIdleClose: (closed) => log.info(closed, 'SMTP session closed: no mail sent within the socket timeout'),
  });

  /**
   * smtp-server takes callbacks; run a promise handler and answer with its result or its reply error. While it
   * runs the session is not idle; an accepted step is progress (connectionGuard.ts).
   */
  const settle =
    <T>(
      session: SMTPServerSession,
      work: () => Promise<T>,
      done: (err: SmtpReplyError | null, value?: T) => void,
    ) =>
    () => {
      guard.busy(session);
      work().then(
        (value) => {
          guard.done(session, true);
          done(null, value);
        },
        (err: unknown) => {
          guard.done(session, false);
          if ((err as SmtpReplyError).responseCode === undefined) {
            const reason = refusalReason(err);
            if (reason !== undefined)
              log.warn({ err: (err as Error).message }, `SMTP command refused: ${reason}`);
            else log.error({ err }, 'SMTP handler failed');
            return done(fromCoreError(err));
          }
          done(err as SmtpReplyError);
        },
      );
    };

  const server = new SMTPServer({
    name: hostname,
    banner: 'sandtrap mail capture: nothing is delivered',
    key: tls.key,
    cert: tls.cert,
    size: MAX_MESSAGE_BYTES,
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: mode === 'inbound',
    disabledCommands: mode === 'inbound' ? ['AUTH'] : [],
    // AUTH before STARTTLS reaches onAuth, which answers 530 5.7.0 (smtp-server's own reply would be 538).
    allowInsecureAuth: true,
    authRequiredMessage: '5.7.0 Authentication required: AUTH with the sandbox id and its smtpPassword',
    hideENHANCEDSTATUSCODES: true,
    disableReverseLookup: true,
    maxClients: 500,
    socketTimeout: timeoutMs,
    // Sessions still in DATA get this long on shutdown (the process exits after 10 s at most).
    closeTimeout: 5_000,
    logger: false,
    onConnect(session, callback) {
      callback(guard.admit(session));
    },
    onSecure(socket, session, callback) {
      guard.secured(session, socket);
      callback();
    },
    onAuth(auth, session, callback) {
      settle(
        session,
        () => onAuth(auth, session),
        (err, user) => (err ? callback(err) : callback(null, { user })),
      )();
    },
    onMailFrom(_address, session, callback: Callback) {
      settle(session, () => onMailFrom(session), callback)();
    },
    onRcptTo(address, session, callback: Callback) {
      settle(session, () => onRcptTo(address, session), callback)();
    },
    onData(stream, session, callback) {
      settle(
        session,
        () => onData(stream, session),
        (err, message) => (err ? callback(err) : callback(null, message)),
      )();
    },
    onClose(session) {
      authFailures.delete(session.id);
      guard.closed(session);
    },
  });
  guard.attach(server.server);
  return server;
}
