// Lifecycle sweeps: ephemeral sandboxes past their TTL read as absent at once and are removed with their
// captures by the sweep; captures older than RETENTION_DAYS are purged while newer ones stay; on
// PostgreSQL the sweep runs under an advisory lock so only one process sweeps at a time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { createCore, type Core } from '../../src/core/core.ts';
import { isAppError } from '../../src/core/errors.ts';
import { createTestApi, testConfig, type TestApi, type TestWorkspace } from '../helpers/api.ts';
import { testClock } from '../helpers/clock.ts';
import { describeEachStore } from '../helpers/stores.ts';

// Copied from src/core/sweeps.ts (not exported): the advisory lock key under which sweeps run.
const SWEEP_LOCK_KEY = 0x5a7d_7a9;

const HOUR = 3_600_000;

describeEachStore('sweeps', (getStore, backend) => {
  /** Rows of `table` belonging to the sandbox, counted in the store itself. */
  async function rows(table: 'messages' | 'requests', sandboxId: string): Promise<number> {
    const row = await getStore()
      .db.selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('sandbox_id', '=', sandboxId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function sandboxRows(id: string): Promise<number> {
    const row = await getStore()
      .db.selectFrom('sandboxes')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Stores one message for the sandbox through core's ingest path; returns its id (none if refused). */
  async function mail(core: Core, sandboxId: string, subject: string): Promise<string | undefined> {
    const raw = Buffer.from(
      `From: a@alpha.test\r\nTo: b@beta.test\r\nSubject: ${subject}\r\n\r\nbody of ${subject}\r\n`,
    );
    const { stored } = await core.ingestMail({
      raw,
      envelopeFrom: 'a@alpha.test',
      deliveries: [{ sandboxId, capturedFor: ['b@beta.test'] }],
    });
    return stored[0]?.messageId;
  }

  /** Records one HTTP request for the sandbox through core's capture path; returns its id. */
  async function request(core: Core, sandboxId: string, path: string): Promise<string> {
    const admission = await core.capture.admit(sandboxId, '127.0.0.1');
    assert.ok(admission.ok, `admitted: ${JSON.stringify(admission)}`);
    const reply = await core.capture.record(admission.target, {
      method: 'POST',
      target: path,
      httpVersion: '1.1',
      path,
      query: null,
      headers: [['content-type', 'text/plain']],
      body: Buffer.from(`body of ${path}`),
      sourceIp: '127.0.0.1',
    });
    assert.ok(reply !== undefined, 'recorded');
    return reply.requestId;
  }

  async function createSandbox(
    ws: TestWorkspace,
    body: Record<string, unknown>,
  ): Promise<Record<string, any>> {
    const res = await ws.call({ method: 'POST', url: '/api/v1/sandboxes', payload: body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  }

  async function status(ws: TestWorkspace, url: string): Promise<number> {
    return (await ws.call({ method: 'GET', url: `/api/v1${url}` })).statusCode;
  }

  async function withApi(env: Record<string, string>, fn: (api: TestApi) => Promise<void>): Promise<void> {
    const api = await createTestApi(getStore(), env);
    try {
      await fn(api);
    } finally {
      await api.close();
    }
  }

  describe('ephemeral sandboxes', () => {
    it('read as 404 once past their TTL, before any sweep; the sweep removes them with their captures', async () => {
      await withApi({}, async ({ core, clock, workspace }) => {
        const ws = await workspace();
        const eph = await createSandbox(ws, { name: 'short-lived', ephemeral: true, ttlMinutes: 1 });
        const keep = await createSandbox(ws, { name: 'permanent' });
        assert.equal(eph.isEphemeral, true);
        assert.equal(Date.parse(eph.expiresAt) - Date.parse(eph.createdAt), 60_000);
        assert.equal(keep.expiresAt, null);
        for (const sb of [eph, keep]) {
          assert.ok((await mail(core, sb.id, 'one')) !== undefined);
          assert.ok((await mail(core, sb.id, 'two')) !== undefined);
          await request(core, sb.id, '/a');
          await request(core, sb.id, '/b');
        }
        assert.equal(await status(ws, `/sandboxes/${eph.id}`), 200);
        assert.equal(await status(ws, `/sandboxes/${eph.id}/messages`), 200);

        // Still alive just before its expiry. The test clock also follows real time, which a loaded machine
        // spends freely: the step is measured from now, with room to spare.
        const untilExpiry = () => Date.parse(eph.expiresAt) - clock.now().getTime();
        clock.advance(untilExpiry() - 10_000);
        assert.equal(await status(ws, `/sandboxes/${eph.id}`), 200);
        assert.equal((await core.sweep()).expiredSandboxes, 0);
        assert.equal(await sandboxRows(eph.id), 1);

        // Past it: absent on every read, although nothing has been swept yet.
        clock.advance(untilExpiry() + 1_000);
        for (const url of [
          `/sandboxes/${eph.id}`,
          `/sandboxes/${eph.id}/messages`,
          `/sandboxes/${eph.id}/requests`,
          `/sandboxes/${eph.id}/messages/wait?timeoutSeconds=0`,
          `/sandboxes/${eph.id}/requests/wait?timeoutSeconds=0`,
        ]) {
          assert.equal(await status(ws, url), 404, url);
        }
        const list = await ws.call({ method: 'GET', url: '/api/v1/sandboxes' });
        assert.deepEqual(
          (list.json() as { items: Array<{ id: string }> }).items.map((s) => s.id),
          [keep.id],
        );
        await assert.rejects(core.sandboxes.get(ws.orgId, eph.id), (err) => {
          assert.ok(isAppError(err) && err.code === 'not_found', String(err));
          return true;
        });
        // Nothing new is captured for it either.
        assert.deepEqual(await core.capture.admit(eph.id, '127.0.0.1'), { ok: false, reason: 'not_found' });
        assert.equal(await mail(core, eph.id, 'too late'), undefined);
        assert.equal(await sandboxRows(eph.id), 1, 'not swept yet');
        assert.equal(await rows('messages', eph.id), 2);
        assert.equal(await rows('requests', eph.id), 2);

        const result = await core.sweep();
        assert.deepEqual(result, { ran: true, expiredSandboxes: 1, purgedMessages: 0, purgedRequests: 0 });
        assert.equal(await sandboxRows(eph.id), 0);
        assert.equal(await rows('messages', eph.id), 0);
        assert.equal(await rows('requests', eph.id), 0);

        // The permanent sandbox is untouched.
        assert.equal(await status(ws, `/sandboxes/${keep.id}`), 200);
        assert.equal(await rows('messages', keep.id), 2);
        assert.equal(await rows('requests', keep.id), 2);

        // A second sweep finds nothing.
        assert.deepEqual(await core.sweep(), {
          ran: true,
          expiredSandboxes: 0,
          purgedMessages: 0,
          purgedRequests: 0,
        });
        // Leave no captures behind for the retention test's exact counts.
        assert.equal(
          (await ws.call({ method: 'DELETE', url: `/api/v1/sandboxes/${keep.id}` })).statusCode,
          204,
        );
      });
    });

    it('a sweep publishes the removal so open waits end', async () => {
      await withApi({}, async ({ core, clock, workspace }) => {
        const ws = await workspace();
        const eph = await createSandbox(ws, { name: 'short-lived', ephemeral: true, ttlMinutes: 1 });
        const seen: string[] = [];
        const unsubscribe = core.bus.subscribe(eph.id, (event) => seen.push(event.kind));
        try {
          clock.advance(61_000);
          assert.equal((await core.sweep()).expiredSandboxes, 1);
          assert.deepEqual(seen, ['sandbox_deleted', 'changed']);
        } finally {
          unsubscribe();
        }
      });
    });
  });

  describe('retention', () => {
    it('purges captures older than RETENTION_DAYS and keeps newer ones', async () => {
      await withApi({ RETENTION_DAYS: '1' }, async ({ core, clock, workspace }) => {
        assert.equal(core.config.retentionDays, 1);
        const ws = await workspace();
        const sb = await createSandbox(ws, { name: 'retained' });
        const oldMessage = await mail(core, sb.id, 'old');
        const oldRequest = await request(core, sb.id, '/old');

        // 23 h later nothing is old enough.
        clock.advance(23 * HOUR);
        assert.deepEqual(await core.sweep(), {
          ran: true,
          expiredSandboxes: 0,
          purgedMessages: 0,
          purgedRequests: 0,
        });
        const newMessage = await mail(core, sb.id, 'new');
        const newRequest = await request(core, sb.id, '/new');

        // 25 h after the first captures: they go, the ones 2 h old stay.
        clock.advance(2 * HOUR);
        assert.deepEqual(await core.sweep(), {
          ran: true,
          expiredSandboxes: 0,
          purgedMessages: 1,
          purgedRequests: 1,
        });
        assert.equal(await rows('messages', sb.id), 1);
        assert.equal(await rows('requests', sb.id), 1);
        const messages = await ws.call({ method: 'GET', url: `/api/v1/sandboxes/${sb.id}/messages` });
        assert.deepEqual(
          (messages.json() as { items: Array<{ id: string }> }).items.map((m) => m.id),
          [newMessage],
        );
        const requests = await ws.call({ method: 'GET', url: `/api/v1/sandboxes/${sb.id}/requests` });
        assert.deepEqual(
          (requests.json() as { items: Array<{ id: string }> }).items.map((r) => r.id),
          [newRequest],
        );
        assert.equal(await status(ws, `/sandboxes/${sb.id}/messages/${oldMessage}`), 404);
        assert.equal(await status(ws, `/sandboxes/${sb.id}/requests/${oldRequest}`), 404);
        // The sandbox itself is not a capture: it stays.
        assert.equal(await status(ws, `/sandboxes/${sb.id}`), 200);
        // Leave no captures behind for the next test's exact counts.
        await core.sandboxes.delete(ws.orgId, sb.id);
      });
    });

    it('the default retention is 30 days', async () => {
      await withApi({}, async ({ core, clock, workspace }) => {
        assert.equal(core.config.retentionDays, 30);
        const ws = await workspace();
        const sb = await createSandbox(ws, { name: 'retained' });
        await mail(core, sb.id, 'month old');
        clock.advance(29 * 24 * HOUR);
        assert.equal((await core.sweep()).purgedMessages, 0);
        clock.advance(2 * 24 * HOUR);
        assert.equal((await core.sweep()).purgedMessages, 1);
        assert.equal(await rows('messages', sb.id), 0);
      });
    });
  });

  if (backend.name === 'postgres') {
    describe('advisory lock (PostgreSQL)', () => {
      /** Two cores on one store, as two processes on one database, sharing a clock. */
      function twoCores() {
        const clock = testClock();
        const config = testConfig();
        return {
          clock,
          a: createCore({ store: getStore(), config, clock }),
          b: createCore({ store: getStore(), config, clock }),
        };
      }

      async function expiredSandbox(core: Core, clock: ReturnType<typeof testClock>): Promise<string> {
        const { account } = await core.workspaces.create('lock');
        const sb = await core.sandboxes.create(account.orgId, {
          name: 'short-lived',
          ephemeral: true,
          ttlMinutes: 1,
        });
        await mail(core, sb.id, 'in an expiring sandbox');
        clock.advance(61_000);
        return sb.id;
      }

      it('a sweep does nothing while another holds the lock', async () => {
        const { clock, a, b } = twoCores();
        const id = await expiredSandbox(a, clock);
        await getStore()
          .db.transaction()
          .execute(async (trx) => {
            await sql`select pg_advisory_xact_lock(${SWEEP_LOCK_KEY})`.execute(trx);
            assert.deepEqual(await b.sweep(), {
              ran: false,
              expiredSandboxes: 0,
              purgedMessages: 0,
              purgedRequests: 0,
            });
            assert.equal((await a.sweep()).ran, false);
            assert.equal(await sandboxRows(id), 1, 'nothing deleted while the lock is held');
          });
        // Lock released with the transaction: the next sweep runs.
        assert.deepEqual(await a.sweep(), {
          ran: true,
          expiredSandboxes: 1,
          purgedMessages: 0,
          purgedRequests: 0,
        });
        assert.equal(await sandboxRows(id), 0);
        assert.equal(await rows('messages', id), 0);
      });

      it('two cores sweeping at once: exactly one removes the sandbox', async () => {
        const { clock, a, b } = twoCores();
        for (let round = 0; round < 5; round++) {
          const id = await expiredSandbox(a, clock);
          const results = await Promise.all([a.sweep(), b.sweep()]);
          const total = results.reduce((n, r) => n + r.expiredSandboxes, 0);
          assert.equal(total, 1, JSON.stringify(results));
          const winner = results.filter((r) => r.expiredSandboxes === 1);
          assert.equal(winner.length, 1);
          assert.equal(winner[0]?.ran, true);
          for (const r of results.filter((x) => x.expiredSandboxes === 0)) {
            assert.ok(
              !r.ran || (r.purgedMessages === 0 && r.purgedRequests === 0),
              `the other did nothing: ${JSON.stringify(r)}`,
            );
          }
          assert.equal(await sandboxRows(id), 0);
        }
      });
    });
  }
});
