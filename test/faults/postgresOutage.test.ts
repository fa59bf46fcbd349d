// A PostgreSQL outage under load: two real `sandtrap serve` processes on a private cluster this test makes and
// crashes (pg_ctl stop -m immediate) while captures and mail are flowing. The processes stay up and refuse
// cleanly (capture 503 + Retry-After, SMTP 451 4.3.0, REST 503), an open wait stays open, and once the
// database is back every path works with no restart: the pool, the LISTEN connection (a wait on the other
// process answers before its own 11 s timer, which runs out before its first 12-18 s re-check) and the
// sweeps. Nothing acknowledged is lost.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import {
  allIds,
  inboundMailer,
  sendOneCapture,
  sendOneMail,
  startLoad,
  stopLoads,
} from '../helpers/faultLoad.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/privatePostgres.ts';
import { eventually } from '../helpers/poll.ts';
import { cleanupProcesses, runCli, startServerProcess, type ServerProcess } from '../helpers/process.ts';

async function api(server: ServerProcess, key: string, path: string, init: RequestInit = {}) {
  return fetch(`${server.apiUrl}/api/v1${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    signal: init.signal ?? AbortSignal.timeout(30_000),
  });
}

/** Polls `attempt` until it returns a value (a generous bound: it fails only when that never happens). */
async function until<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  return eventually(what, attempt, 30_000, 100);
}

/** A wait started now; `settled` flips once it answered. */
function openWait(server: ServerProcess, key: string, path: string) {
  const state = { settled: false };
  const answer = api(server, key, path, { signal: AbortSignal.timeout(400_000) })
    .then(async (res) => ({ status: res.status, body: await res.text() }))
    .finally(() => (state.settled = true));
  answer.catch(() => undefined);
  return { state, answer };
}

describe('PostgreSQL stopped and started under load', () => {
  let pgc: PrivatePostgres;
  let a: ServerProcess;
  let b: ServerProcess;
  let key: string;
  let sandboxId: string;

  before(async () => {
    pgc = await startPrivatePostgres();
    const generated = await runCli(['keys', 'generate']);
    key = generated.stdout.trim();
    const env = {
      DATABASE_URL: pgc.url,
      BOOTSTRAP_API_KEY: key,
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'info',
      SWEEP_INTERVAL_SECONDS: '1',
    };
    a = await startServerProcess({ env });
    await a.waitHealthy(20_000);
    b = await startServerProcess({ env });
    await b.waitHealthy(20_000);
    const created = await api(a, key, '/sandboxes', {
      method: 'POST',
      body: JSON.stringify({ name: 'outage' }),
    });
    assert.equal(created.status, 201);
    sandboxId = ((await created.json()) as { id: string }).id;
  });

  after(async () => {
    await stopLoads();
    await cleanupProcesses();
    await pgc?.destroy();
  });

  test('clean refusals while it is down, recovery without restart, nothing acknowledged lost', async () => {
    // A wait on B for something that will only be sent after the outage.
    const wait = openWait(
      b,
      key,
      `/sandboxes/${sandboxId}/requests/wait?pathContains=after-recovery&timeoutSeconds=300`,
    );

    const load = startLoad({ capturePort: a.ports.capture, smtpInboundPort: a.ports.smtpInbound, sandboxId });
    await until('a capture and a mail acknowledged before the outage', async () =>
      load.captures.some((c) => c.status === 200) && load.mails.some((m) => m.ok) ? true : undefined,
    );

    await pgc.stop('immediate');
    const capturedAtStop = load.captures.length;

    // Captures: 503 problem+json with Retry-After.
    const refusedCapture = await until('a capture refused with 503', async () => {
      const got = await sendOneCapture(a.ports.capture, sandboxId, '/during-outage');
      return got.status === 503 ? got : undefined;
    });
    assert.match(refusedCapture.contentType ?? '', /application\/problem\+json/);
    assert.match(refusedCapture.retryAfter ?? '', /^\d+$/);
    const captureProblem = JSON.parse(refusedCapture.body ?? '{}') as { type: string; detail: string };
    assert.equal(captureProblem.type, 'urn:sandtrap:problem:unavailable');
    assert.match(captureProblem.detail, /database is unreachable/i);

    // SMTP: 451 4.3.0, a temporary failure the sender retries.
    const mailer = inboundMailer(a.ports.smtpInbound);
    const refusedMail = await sendOneMail(mailer, sandboxId, 'during outage');
    mailer.close();
    assert.equal(refusedMail.ok, false);
    assert.equal(refusedMail.responseCode, 451, refusedMail.response);
    assert.match(refusedMail.response ?? '', /4\.3\.0/);

    // REST: 503 problem+json with Retry-After, on both processes.
    for (const server of [a, b]) {
      const res = await api(server, key, `/sandboxes/${sandboxId}`);
      assert.equal(res.status, 503);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
      assert.ok(res.headers.get('x-request-id'));
      const body = (await res.json()) as { type: string; requestId: string };
      assert.equal(body.type, 'urn:sandtrap:problem:unavailable');
    }
    // The load keeps getting answers (refusals) from the stopped database.
    await until('the load to get answers during the outage', async () =>
      load.captures.length > capturedAtStop ? true : undefined,
    );
    assert.equal(a.exitCode, null, `A exited:\n${a.stderr.slice(-2000)}`);
    assert.equal(b.exitCode, null, `B exited:\n${b.stderr.slice(-2000)}`);
    assert.equal(a.child.signalCode, null);
    assert.equal(wait.state.settled, false, 'the open wait ended during the outage');

    await pgc.start();
    await until('captures acknowledged again', async () => {
      const got = await sendOneCapture(a.ports.capture, sandboxId, '/recovered');
      return got.status === 200 ? true : undefined;
    });
    // Log lines carry wall-clock times: the sweeps' failures are looked for from a little after this point.
    const recoveredAt = Date.now();
    await sleep(500);
    await load.stop();

    // The wait on B, open since before the outage, wakes on an arrival at A. So does a fresh wait on B whose
    // own 11 s timer runs out before its first re-check (12-18 s): its 200 is B's LISTEN connection at work
    // again (a notification, or the look it takes once it has listened again).
    assert.equal(wait.state.settled, false, 'the wait ended before its item was sent');
    const fresh = openWait(
      b,
      key,
      `/sandboxes/${sandboxId}/requests/wait?pathContains=after-recovery&timeoutSeconds=11`,
    );
    await sleep(300); // lets the fresh wait open first (were it later, it would find the item: 200 all the same)
    const late = await sendOneCapture(a.ports.capture, sandboxId, '/after-recovery');
    assert.equal(late.status, 200);
    for (const [name, w] of [
      ['the wait open through the outage', wait],
      ['the fresh wait', fresh],
    ] as const) {
      const woke = await w.answer;
      assert.equal(woke.status, 200, `${name}: ${woke.body}`);
      assert.equal((JSON.parse(woke.body) as { id: string }).id, late.id, name);
    }

    // SMTP and REST work again on both processes.
    const mailerAfter = inboundMailer(a.ports.smtpInbound);
    const mailAfter = await sendOneMail(mailerAfter, sandboxId, 'after outage');
    mailerAfter.close();
    assert.equal(mailAfter.ok, true, mailAfter.response);
    for (const server of [a, b])
      assert.equal((await api(server, key, `/sandboxes/${sandboxId}`)).status, 200);

    // Nothing acknowledged is lost.
    const ackedCaptures = load.captures.filter((c) => c.status === 200).map((c) => c.id as string);
    const ackedMails = load.mails.filter((m) => m.ok).map((m) => m.id as string);
    assert.ok(ackedMails.length > 0, 'no mail was acknowledged');
    const storedRequests = await allIds(b.apiUrl, key, `/sandboxes/${sandboxId}/requests`);
    const storedMessages = await allIds(b.apiUrl, key, `/sandboxes/${sandboxId}/messages`);
    const lostCaptures = ackedCaptures.filter((id) => !storedRequests.has(id));
    const lostMails = ackedMails.filter((id) => !storedMessages.has(id));
    assert.deepEqual(
      lostCaptures,
      [],
      `${lostCaptures.length} of ${ackedCaptures.length} acknowledged captures lost`,
    );
    assert.deepEqual(lostMails, [], `${lostMails.length} of ${ackedMails.length} acknowledged mails lost`);
    // Every answer during the load was an acknowledgement or a clean refusal, never a reset or a 500.
    const unclean = load.captures.filter((c) => c.status !== 200 && c.status !== 503);
    assert.deepEqual(
      unclean.map((c) => c.status),
      [],
    );
    const uncleanMail = load.mails.filter((m) => !m.ok && m.responseCode !== 451);
    assert.deepEqual(
      uncleanMail.map((m) => m.response),
      [],
    );

    // Sweeps recovered too: none has failed since the database came back.
    await sleep(2_500);
    const sweepFailures = (server: ServerProcess) =>
      server
        .logs()
        .filter(
          (l) =>
            l.msg === 'sweep failed; it runs again at the next interval' &&
            Number(l.time) > recoveredAt + 5_000,
        );
    assert.deepEqual(sweepFailures(a), []);
    assert.deepEqual(sweepFailures(b), []);
    assert.ok(
      a.logs().some((l) => String(l.msg).includes('the change-event connection is back')),
      'A did not log that its LISTEN connection came back',
    );
    assert.equal(a.exitCode, null);
    assert.equal(b.exitCode, null);
  });
});
