// Applies a sandbox's SMTP fault script (core/smtpFaults) to one listener's sessions, and logs what each session of
// such a sandbox went through. A session meets its sandbox at AUTH (submission) or at a RCPT naming it (inbound):
// connect and ehlo, which came before, are judged then, and so is MAIL on the inbound port (README, "SMTP faults").
// A tarpit is a timer; a drop closes the socket; a reply replaces ours. Sandboxes without a script cost one map read.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { SMTPServerSession } from 'smtp-server';
import type { Core } from '../core/core.ts';
import { logFailure } from '../core/failureLog.ts';
import type { SmtpFaultDecision, SmtpFaultScript, SmtpSessionLog } from '../core/smtpFaults/service.ts';
import type { SmtpFaultStage, SmtpSessionEvent } from '../core/smtpFaults/types.ts';
import type { ConnectionGuard } from './connectionGuard.ts';
import { reply, type SmtpReplyError } from './replies.ts';

interface Reply {
  code: number;
  text: string;
}

/** A sandbox's script as one session follows it. */
interface Followed {
  script: SmtpFaultScript;
  log: SmtpSessionLog;
  /** connect and ehlo were judged (once per session). */
  greeted: boolean;
  /** The transaction (envelope) whose MAIL was judged on the inbound port. */
  mailJudged: object | undefined;
}

interface SessionState {
  bySandbox: Map<string, Followed>;
  closed: AbortController;
}

/** The error a step answers a command with, already in the session log. */
type FaultReply = SmtpReplyError & { fault?: 'reply' | 'drop' };

/** What smtp-server is handed after a drop: a 421 makes it close its side too (the socket is gone already). */
const dropped = (): FaultReply => {
  const err = reply(421, '4.4.2', 'Connection dropped by the sandbox fault script') as FaultReply;
  err.fault = 'drop';
  return err;
};

function stepReply(code: number, text: string): FaultReply {
  const err = new Error(text) as FaultReply;
  err.responseCode = code;
  err.fault = 'reply';
  return err;
}

export function createSmtpFaults(opts: {
  core: Core;
  mode: 'submission' | 'inbound';
  guard: ConnectionGuard;
  log: Logger;
}) {
  const { core, mode, guard, log } = opts;
  const faults = core.smtpFaults;
  const sessions = new Map<string, SessionState>();
  const onLogError = (err: unknown) =>
    logFailure(
      log,
      err,
      {},
      { refused: 'SMTP session log refused', failed: 'writing the SMTP session log failed' },
    );

  const stateOf = (session: SMTPServerSession): SessionState => {
    let state = sessions.get(session.id);
    if (state === undefined) {
      state = { bySandbox: new Map(), closed: new AbortController() };
      sessions.set(session.id, state);
    }
    return state;
  };

  /** The sandbox's script as this session follows it; undefined when it has none (no log either). */
  async function follow(session: SMTPServerSession, sandboxId: string): Promise<Followed | undefined> {
    const script = await faults.script(sandboxId);
    if (script === undefined) return undefined;
    const state = stateOf(session);
    let followed = state.bySandbox.get(sandboxId);
    if (followed === undefined) {
      followed = {
        script,
        log: faults.openLog(
          sandboxId,
          { listener: mode, remoteAddress: session.remoteAddress ?? null, startedAt: core.clock.now() },
          onLogError,
        ),
        greeted: false,
        mailJudged: undefined,
      };
      state.bySandbox.set(sandboxId, followed);
    }
    // A script saved during the session applies from its next command on.
    followed.script = script;
    return followed;
  }

  const event = (
    stage: SmtpFaultStage,
    decision: SmtpFaultDecision | undefined,
    sent: Reply | null,
    deferred = false,
  ): SmtpSessionEvent => ({
    stage,
    at: core.clock.now().toISOString(),
    fault: decision === undefined ? null : { index: decision.index, action: decision.action },
    reply: sent,
    ...(deferred ? { deferred: true as const } : {}),
  });

  /**
   * Judges one stage: a tarpit waits here; a reply or a drop is thrown (already logged) for the command to answer
   * with. Returns the step that applied (accept, delay) so the caller logs it with the command's own reply.
   */
  async function judge(
    session: SMTPServerSession,
    followed: Followed,
    stage: SmtpFaultStage,
    address?: string,
  ): Promise<SmtpFaultDecision | undefined> {
    const decision = await faults.decide(followed.script, stage, address);
    if (decision === undefined) return undefined;
    const { step } = decision;
    if (step.delayMs !== undefined) {
      const signal = stateOf(session).closed.signal;
      try {
        await sleep(step.delayMs, undefined, { ref: false, signal });
      } catch {
        // The client left during the tarpit: nothing more happens in this session.
        await followed.log.record([event(stage, decision, null)]);
        throw dropped();
      }
      return decision;
    }
    if (step.reply !== undefined) {
      const err = stepReply(step.reply.code, step.reply.text);
      await followed.log.record([
        event(stage, decision, step.reply, stage === 'connect' || stage === 'ehlo'),
      ]);
      throw err;
    }
    if (step.drop === true) {
      await followed.log.record([event(stage, decision, null, stage === 'connect' || stage === 'ehlo')]);
      guard.drop(session);
      throw dropped();
    }
    return decision;
  }

  /** connect and ehlo, judged when the session first meets the sandbox (they were answered before that). */
  async function greet(session: SMTPServerSession, followed: Followed): Promise<void> {
    if (followed.greeted) return;
    followed.greeted = true;
    for (const stage of ['connect', 'ehlo'] as const) {
      const decision = await judge(session, followed, stage);
      const sent = stage === 'connect' ? { code: 220, text: 'greeting' } : { code: 250, text: 'EHLO' };
      await followed.log.record([event(stage, decision, sent, true)]);
    }
  }

  const outcome = (err: unknown): Reply => {
    const e = err as SmtpReplyError;
    return { code: e.responseCode ?? 451, text: e.message };
  };

  return {
    /**
     * Runs one command of the session for the sandboxes it concerns: their pending stages first (connect, ehlo,
     * and MAIL on the inbound port), then this stage's step, then `work` unless a step answered; logs the
     * reply the client gets. Steps apply only when the command concerns one sandbox, so a fault never touches
     * another sandbox's mail.
     */
    async command<T>(
      session: SMTPServerSession,
      stage: 'auth' | 'mail' | 'rcpt',
      sandboxIds: readonly string[],
      work: () => Promise<T>,
      ok: Reply,
      address?: string,
    ): Promise<T> {
      const followed = (await Promise.all(sandboxIds.map((id) => follow(session, id)))).filter(
        (f) => f !== undefined,
      );
      if (followed.length === 0) return work();
      const only = followed.length === 1 && sandboxIds.length === 1 ? followed[0] : undefined;
      let decision: SmtpFaultDecision | undefined;
      try {
        if (only !== undefined) {
          await greet(session, only);
          if (mode === 'inbound' && stage === 'rcpt' && only.mailJudged !== session.envelope) {
            only.mailJudged = session.envelope;
            const mail = await judge(session, only, 'mail');
            await only.log.record([event('mail', mail, { code: 250, text: 'Accepted' }, true)]);
          }
          decision = await judge(session, only, stage, address);
        }
        const value = await work();
        for (const f of followed) await f.log.record([event(stage, decision, ok)]);
        return value;
      } catch (err) {
        if ((err as FaultReply).fault === undefined)
          for (const f of followed) await f.log.record([event(stage, decision, outcome(err))]);
        throw err;
      }
    },

    /**
     * DATA: the `data` step is judged before the body is read (a tarpit holds it; a drop cuts it off), the
     * `after-data` step once it arrived and before it is stored. `store` runs only if no step answered.
     */
    async data(
      session: SMTPServerSession,
      sandboxIds: readonly string[],
      read: () => Promise<Buffer | 'too-big'>,
      store: (raw: Buffer | 'too-big') => Promise<string>,
    ): Promise<string> {
      const followed = (await Promise.all(sandboxIds.map((id) => follow(session, id)))).filter(
        (f) => f !== undefined,
      );
      if (followed.length === 0) return store(await read());
      const only = followed.length === 1 && sandboxIds.length === 1 ? followed[0] : undefined;
      let atData: SmtpFaultDecision | undefined;
      let afterData: SmtpFaultDecision | undefined;
      let raw: Buffer | 'too-big' | undefined;
      // One entry for the reply to the message: `after-data` when that step applied, else `data`.
      const final = (sent: Reply) => {
        const events = [event(afterData === undefined ? 'data' : 'after-data', afterData ?? atData, sent)];
        if (afterData !== undefined && atData !== undefined)
          events.unshift(event('data', atData, { code: 354, text: 'Go ahead' }));
        return events;
      };
      try {
        if (only !== undefined) atData = await judge(session, only, 'data');
        raw = await read();
        if (only !== undefined) afterData = await judge(session, only, 'after-data');
        const text = await store(raw);
        for (const f of followed) await f.log.record(final({ code: 250, text }));
        return text;
      } catch (err) {
        const fault = (err as FaultReply).fault;
        // A reply at the data stage comes once the body is in: drain it so the client hears it in turn.
        if (fault === 'reply' && raw === undefined) await read();
        else if (fault === undefined) for (const f of followed) await f.log.record(final(outcome(err)));
        throw err;
      }
    },

    /** From onClose: the session's logs get their end; a tarpit still running ends. */
    closed(session: SMTPServerSession): void {
      const state = sessions.get(session.id);
      if (state === undefined) return;
      sessions.delete(session.id);
      state.closed.abort();
      const at = core.clock.now();
      for (const f of state.bySandbox.values()) void f.log.record([], at);
    },
  };
}
