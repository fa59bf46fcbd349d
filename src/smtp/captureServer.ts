// The two SMTP listeners. Submission: STARTTLS, then AUTH with a sandbox's credentials, any recipient.
// Inbound: no AUTH, recipients must be <anything>@<sandbox id>.<CAPTURE_DOMAIN>. Both hand DATA to core's
// one ingest path and answer 250 only after it committed; both cap sessions per address, idle sessions and
// recipients per transaction.
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import type { Core } from '../core/core.ts';
import type { MailDelivery } from '../core/mail/ingest.ts';
import { logFailure } from '../core/failureLog.ts';
import type { MailTarget } from '../core/mail/smtpAccess.ts';
import type { SmtpFacts } from '../core/mail/smtpAdmission.ts';
import { createConnectionGuard } from './connectionGuard.ts';
import { createSmtpFaults } from './faults.ts';
import { readData } from './readData.ts';
import { createTransactionSpans } from './transactionSpans.ts';
import { fromCoreError, refusalReply, replies, type SmtpReplyError } from './replies.ts';
import type { TlsCredentials } from './tlsCredentials.ts';

export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Recipients of one transaction; RFC 5321 4.5.3.1.8 asks servers to take at least 100. */
export const MAX_RECIPIENTS = 100;

type Callback = (err?: SmtpReplyError | null) => void;
/** The replies smtp-server sends for an accepted command, as the session log records them. */
const AUTH_OK = { code: 235, text: 'Authentication successful' };
const ACCEPTED = { code: 250, text: 'Accepted' };
type SmtpCommand = 'connect' | 'auth' | 'mail' | 'rcpt' | 'data';

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
  const transactions = createTransactionSpans(mode);
  /** Bytes of the DATA being answered, per session, for its transaction's span. */
  const dataSizes = new Map<string, number>();

  /** Runs one command's admission in core and answers a refusal with its reply. */
  async function admit(facts: SmtpFacts): Promise<MailTarget | undefined> {
    const admission = await core.smtp.admit(facts);
    if (admission.ok) return admission.target;
    throw refusalReply(admission, core.config.captureDomain);
  }

  async function onAuth(
    auth: { username?: string | null; password?: string | null },
    session: SMTPServerSession,
  ): Promise<MailTarget | undefined> {
    if (!session.secure) throw replies.startTlsFirst();
    const admission = await core.smtp.admit({
      stage: 'auth',
      ip: session.remoteAddress,
      username: auth.username ?? '',
      password: auth.password ?? '',
      failedOnConnection: authFailures.get(session.id) ?? 0,
    });
    if (admission.ok) {
      const target = admission.target;
      if (target === undefined) return undefined;
      return faults.command(session, 'auth', [target.sandboxId], async () => target, AUTH_OK);
    }
    if (admission.reason === 'login_failed') {
      authFailures.set(session.id, admission.failedOnConnection);
      log.info(
        { session: session.id, ip: session.remoteAddress, failures: admission.failedOnConnection },
        'SMTP AUTH refused',
      );
    }
    throw refusalReply(admission, core.config.captureDomain);
  }

  async function onMailFrom(session: SMTPServerSession): Promise<void> {
    const login = mode === 'submission' ? (session.user as MailTarget) : undefined;
    // Inbound: the sandbox is not known before a recipient names it; its MAIL step is judged then.
    await faults.command(
      session,
      'mail',
      login === undefined ? [] : [login.sandboxId],
      () => admit({ stage: 'mail', ip: session.remoteAddress, login }),
      ACCEPTED,
    );
  }

  async function onRcptTo(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    const rcpts = session.envelope.rcptTo;
    const lower = address.address.toLowerCase();
    // A repeated recipient replaces its earlier entry (smtp-server), so it never counts twice.
    if (rcpts.length >= MAX_RECIPIENTS && !rcpts.some((r) => r.address.toLowerCase() === lower)) {
      throw replies.tooManyRecipients(MAX_RECIPIENTS);
    }
    if (mode === 'submission') {
      // The credential selects the sandbox; any valid address is known.
      const login = session.user as MailTarget;
      await faults.command(session, 'rcpt', [login.sandboxId], async () => {}, ACCEPTED, address.address);
      return;
    }
    let counted = countedWorkspaces.get(session.envelope);
    if (counted === undefined) countedWorkspaces.set(session.envelope, (counted = new Set()));
    const target = await admit({ stage: 'rcpt', address: address.address, counted });
    if (target === undefined) throw replies.storeFailed();
    const workspaces = counted;
    await faults.command(
      session,
      'rcpt',
      [target.sandboxId],
      async () => {
        workspaces.add(target.workspaceId);
        recipientTargets.set(address, target);
      },
      ACCEPTED,
      address.address,
    );
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
    const sandboxIds = deliveries(session).map((d) => d.sandboxId);
    return faults.data(
      session,
      sandboxIds,
      () => readData(stream),
      (raw) => store(raw, session),
    );
  }

  /** Stores one message's DATA for its transaction's sandboxes; the text of the 250 once committed. */
  async function store(raw: Buffer | 'too-big', session: SMTPServerSession): Promise<string> {
    if (raw === 'too-big') throw replies.tooBig(MAX_MESSAGE_BYTES);
    const mailFrom = session.envelope.mailFrom;
    const bytes = raw.length;
    dataSizes.set(session.id, bytes);
    let result;
    try {
      result = await core.ingestMail({
        raw,
        envelopeFrom: mailFrom === false ? null : mailFrom.address || null,
        deliveries: deliveries(session),
      });
    } catch (err) {
      logFailure(
        log,
        err,
        { session: session.id },
        { refused: 'message refused', failed: 'storing a message failed' },
      );
      throw fromCoreError(err);
    }
    if (result.stored.length === 0) throw replies.sandboxGone();
    const perWorkspace = core.metrics.workspaceItems;
    if (perWorkspace !== undefined) {
      const workspaces =
        mode === 'submission'
          ? [(session.user as MailTarget).workspaceId]
          : session.envelope.rcptTo.map((r) => recipientTargets.get(r)?.workspaceId);
      for (const workspace of new Set(workspaces))
        if (workspace !== undefined) perWorkspace.inc({ workspace, stream: 'messages' });
    }
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
  const faults = createSmtpFaults({ core, mode, guard, log });

  /**
   * smtp-server takes callbacks; run a promise handler and answer with its result or its reply error. While it
   * runs the session is not idle; an accepted step is progress (connectionGuard.ts).
   */
  const count = (command: SmtpCommand, code: number) =>
    core.metrics.smtpReplies.inc({ listener: mode, command, code: String(code) });
  const replied = (session: SMTPServerSession, code: number) => {
    transactions.replied(session, code, dataSizes.get(session.id));
    dataSizes.delete(session.id);
  };
  const settle =
    <T>(
      session: SMTPServerSession,
      command: SmtpCommand,
      work: () => Promise<T>,
      done: (err: SmtpReplyError | null, value?: T) => void,
    ) =>
    () => {
      guard.busy(session);
      work().then(
        (value) => {
          guard.done(session, true);
          count(command, command === 'auth' ? 235 : 250);
          if (command === 'data') replied(session, 250);
          done(null, value);
        },
        (err: unknown) => {
          guard.done(session, false);
          let reply = err as SmtpReplyError;
          if (reply.responseCode === undefined) {
            logFailure(log, err, {}, { refused: 'SMTP command refused', failed: 'SMTP handler failed' });
            reply = fromCoreError(err);
          }
          count(command, reply.responseCode);
          if (command === 'mail' || command === 'data') replied(session, reply.responseCode);
          done(reply);
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
    // The inbound port is plain unless asked (SMTP_INBOUND_STARTTLS): clients such as nodemailer upgrade whenever
    // STARTTLS is offered, and then refuse our self-signed certificate.
    disabledCommands:
      mode === 'inbound' ? ['AUTH', ...(core.config.smtpInboundStartTls ? [] : ['STARTTLS'])] : [],
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
      const refused = guard.admit(session);
      if (refused) count('connect', refused.responseCode);
      callback(refused);
    },
    onSecure(socket, session, callback) {
      guard.secured(session, socket);
      callback();
    },
    onAuth(auth, session, callback) {
      settle(
        session,
        'auth',
        () => onAuth(auth, session),
        (err, user) => (err ? callback(err) : callback(null, { user })),
      )();
    },
    onMailFrom(_address, session, callback: Callback) {
      transactions.started(session);
      settle(session, 'mail', () => onMailFrom(session), callback)();
    },
    onRcptTo(address, session, callback: Callback) {
      settle(session, 'rcpt', () => onRcptTo(address, session), callback)();
    },
    onData(stream, session, callback) {
      settle(
        session,
        'data',
        () => onData(stream, session),
        (err, message) => (err ? callback(err) : callback(null, message)),
      )();
    },
    onClose(session) {
      authFailures.delete(session.id);
      faults.closed(session);
      transactions.closed(session);
      dataSizes.delete(session.id);
      guard.closed(session);
    },
  });
  guard.attach(server.server);
  return server;
}
