// Two real `sandtrap serve` processes on one PostgreSQL database (design section 8, multi-instance): a wait
// on one process returns mail and requests captured by the other, woken by LISTEN/NOTIFY rather than by the
// 15 s re-check (the wait's own shorter timeout comes first, so a 200 can only be the notification); TTL
// sweeps run under the advisory lock, so an expired sandbox is removed (with its captures) by exactly one
// process, and open waits on both processes end with 404 when it goes.
// Runs only when TEST_DATABASE_URL is set (as .ci/run does); each run uses a fresh database of its own.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, test } from 'node:test';
import type { components } from '../../openapi/schema.d.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import type { ServerProcess } from '../helpers/process.ts';
import { eventually } from '../helpers/poll.ts';
import { needsPostgres, useTwoServers } from '../helpers/twoServers.ts';

type Schemas = components['schemas'];

/**
 * A cross-process wait looks at the store again 12-18 s after it opened, notification or not. Its own timer
 * of 11 s runs out first (both are timers of the wait's process), so a 200 inside it came by the notification.
 */
const BEFORE_RECHECK_SECONDS = 11;
const SWEEP_LINE = 'sweep removed expired sandboxes and old captures';

interface Answer<T> {
  res: Response;
  body: T | undefined;
}

/** An API call with a bounded time (a hang guard); the JSON body (if any) is parsed. */
async function call<T>(
  server: ServerProcess,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 90_000,
): Promise<Answer<T>> {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  return { res, body: text === '' ? undefined : (JSON.parse(text) as T) };
}

/** A long-poll wait started now; `settled` flips once it answered, so a test can tell it was still open. */
function openWait<T>(server: ServerProcess, key: string, path: string) {
  const state = { settled: false };
  const promise = call<T>(server, key, 'GET', path, undefined, 270_000).finally(() => {
    state.settled = true;
  });
  // Keep an early rejection from being reported as unhandled before the test awaits it.
  promise.catch(() => undefined);
  return { state, promise };
}

/** Polls `check` until it returns true (a generous bound: it fails only when that never happens). */
async function until(description: string, check: () => Promise<boolean>): Promise<void> {
  await eventually(description, check, 90_000, 100);
}

/** The `sweep` objects of a process's "sweep removed ..." log lines. */
function sweepLogs(server: ServerProcess): Array<{ expiredSandboxes?: number }> {
  return server
    .logs()
    .filter((l) => l.msg === SWEEP_LINE)
    .map((l) => (l.sweep ?? {}) as { expiredSandboxes?: number });
}

describe('two serve processes on one PostgreSQL', { skip: needsPostgres }, () => {
  const servers = useTwoServers('sandtrap_mp', { SWEEP_INTERVAL_SECONDS: '1', LOG_LEVEL: 'info' });
  const A = servers.a;
  const B = servers.b;
  let key: string;

  before(() => {
    key = servers.key();
  });

  test('both processes accept the bootstrap key and share one workspace', async () => {
    const [wa, wb] = await Promise.all([
      call<Schemas['WhoAmI']>(A(), key, 'GET', '/whoami'),
      call<Schemas['WhoAmI']>(B(), key, 'GET', '/whoami'),
    ]);
    assert.equal(wa.res.status, 200);
    assert.equal(wb.res.status, 200);
    assert.equal(wa.body?.workspaceName, 'default');
    assert.equal(wb.body?.workspaceId, wa.body?.workspaceId);
  });

  test(
    'a message wait on A returns mail sent to B, woken by the notification',
    { timeout: 360_000 },
    async () => {
      const created = await call<Schemas['Sandbox']>(A(), key, 'POST', '/sandboxes', { name: 'cross-mail' });
      assert.equal(created.res.status, 201);
      const sb = created.body as Schemas['Sandbox'];

      const wait = openWait<Schemas['MessageDetail']>(
        A(),
        key,
        `/sandboxes/${sb.id}/messages/wait?timeoutSeconds=${BEFORE_RECHECK_SECONDS}&subjectContains=cross`,
      );
      await sleep(300);
      assert.equal(wait.state.settled, false, 'the wait answered before any mail was sent');

      const subject = `cross-process ${randomBytes(4).toString('hex')}`;
      const transport = sandboxTransport(B().ports.smtp, sb, {
        connectionTimeout: 5_000,
        greetingTimeout: 5_000,
        socketTimeout: 10_000,
      });
      try {
        const info = await transport.sendMail({
          from: 'app@example.test',
          to: 'user@example.test',
          subject,
          text: 'sent to process B, awaited on process A',
        });
        assert.match(info.response, /^250 /);

        // 200, not the 204 of its 11 s timer, which runs out before its first re-check.
        const { res, body } = await wait.promise;
        assert.equal(res.status, 200);
        assert.equal(body?.subject, subject);

        const listed = await call<{ items: Schemas['MessageSummary'][] }>(
          B(),
          key,
          'GET',
          `/sandboxes/${sb.id}/messages`,
        );
        assert.equal(listed.res.status, 200);
        assert.deepEqual(
          listed.body?.items.map((m) => [m.id, m.subject]),
          [[body?.id, subject]],
        );
      } finally {
        transport.close();
      }
    },
  );

  test(
    'a request wait on B returns a request captured by A, woken by the notification',
    { timeout: 360_000 },
    async () => {
      const created = await call<Schemas['Sandbox']>(A(), key, 'POST', '/sandboxes', { name: 'cross-http' });
      assert.equal(created.res.status, 201);
      const sb = created.body as Schemas['Sandbox'];

      const wait = openWait<Schemas['RequestDetail']>(
        B(),
        key,
        `/sandboxes/${sb.id}/requests/wait?timeoutSeconds=${BEFORE_RECHECK_SECONDS}&pathContains=/cross`,
      );
      await sleep(300);
      assert.equal(wait.state.settled, false, 'the wait answered before any request was captured');

      const captured = await fetch(`http://127.0.0.1:${A().ports.capture}/${sb.id}/cross?n=1`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ via: 'A' }),
        signal: AbortSignal.timeout(90_000),
      });
      await captured.arrayBuffer();
      assert.ok(captured.status < 500, `capture answered ${captured.status}`);

      // 200, not the 204 of its 11 s timer, which runs out before its first re-check.
      const { res, body } = await wait.promise;
      assert.equal(res.status, 200);
      assert.equal(body?.method, 'POST');
      assert.equal(body?.path, '/cross');

      const listed = await call<{ items: Schemas['RequestSummary'][] }>(
        A(),
        key,
        'GET',
        `/sandboxes/${sb.id}/requests`,
      );
      assert.equal(listed.res.status, 200);
      assert.deepEqual(
        listed.body?.items.map((r) => r.id),
        [body?.id],
      );
    },
  );

  test(
    'an expired sandbox is swept once, by one process, with its captures',
    { timeout: 360_000 },
    async () => {
      const conn = servers.db();
      const created = await call<Schemas['Sandbox']>(A(), key, 'POST', '/sandboxes', {
        name: 'e',
        ephemeral: true,
        ttlMinutes: 1,
      });
      assert.equal(created.res.status, 201);
      const sb = created.body as Schemas['Sandbox'];
      assert.equal(sb.isEphemeral, true);

      const captured = await fetch(`http://127.0.0.1:${A().ports.capture}/${sb.id}/soon-gone`, {
        method: 'POST',
        body: 'x',
        signal: AbortSignal.timeout(90_000),
      });
      await captured.arrayBuffer();
      assert.ok(captured.status < 500, `capture answered ${captured.status}`);
      const stored = await conn.query<{ n: string }>(
        'SELECT count(*) AS n FROM requests WHERE sandbox_id = $1',
        [sb.id],
      );
      assert.equal(stored.rows[0]?.n, '1');

      // Waits open on both processes; the deletion event must end both (one locally, one across processes).
      // Long enough that only the deletion (by notification, or a re-check of the sandbox) can end them.
      const waitPath = `/sandboxes/${sb.id}/requests/wait?timeoutSeconds=120&pathContains=/never`;
      const waits = [openWait(A(), key, waitPath), openWait(B(), key, waitPath)];
      await sleep(300);
      assert.ok(
        waits.every((w) => !w.state.settled),
        'a wait on the ephemeral sandbox answered early',
      );
      const sweptBefore = [sweepLogs(A()).length, sweepLogs(B()).length];

      const expired = await conn.query(
        `UPDATE sandboxes SET expires_at = now() - interval '1 second' WHERE id = $1`,
        [sb.id],
      );
      assert.equal(expired.rowCount, 1);

      await until('the expired sandbox row is gone', async () => {
        const r = await conn.query('SELECT 1 FROM sandboxes WHERE id = $1', [sb.id]);
        return r.rowCount === 0;
      });
      const left = await conn.query<{ n: string }>(
        'SELECT count(*) AS n FROM requests WHERE sandbox_id = $1',
        [sb.id],
      );
      assert.equal(left.rows[0]?.n, '0', 'the swept sandbox still has captured requests');

      for (const [i, w] of waits.entries()) {
        const { res } = await w.promise;
        assert.equal(res.status, 404, `the wait on process ${i === 0 ? 'A' : 'B'} answered ${res.status}`);
      }

      // The sweeping process logs right after its commit; then allow two more sweep intervals on both.
      await until('a process logs the sweep', async () =>
        [A(), B()].some((s) => sweepLogs(s).some((l) => (l.expiredSandboxes ?? 0) >= 1)),
      );
      await sleep(2_200);
      const perProcess = [A(), B()].map((s, i) =>
        sweepLogs(s)
          .slice(sweptBefore[i])
          .filter((l) => (l.expiredSandboxes ?? 0) >= 1),
      );
      const describeLogs = () => JSON.stringify({ A: perProcess[0], B: perProcess[1] });
      assert.deepEqual(
        perProcess.map((lines) => lines.length).sort(),
        [0, 1],
        `expected one sweep line in exactly one process: ${describeLogs()}`,
      );
      assert.equal(perProcess.flat()[0]?.expiredSandboxes, 1, describeLogs());

      for (const server of [A(), B()]) {
        const got = await call(server, key, 'GET', `/sandboxes/${sb.id}`);
        assert.equal(got.res.status, 404);
      }
    },
  );
});
