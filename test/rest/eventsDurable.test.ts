// Live events that must survive time and concurrency: a resume after a server restart replays exactly the
// arrivals committed while the client was away (on a store that outlives the server); on PostgreSQL, a commit
// that lands late with a smaller sequence (an older transaction still open) is neither skipped nor sent twice;
// a client that stops reading is reset and closed while the server's memory stays flat; shutdown ends streams.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openStore, type Store } from '../../src/core/store/openStore.ts';
import { MAX_BACKLOG_BYTES } from '../../src/core/liveEvents/stream.ts';
import { sendRecorded } from '../helpers/captureClient.ts';
import { openEvents } from '../helpers/eventStream.ts';
import { eventually } from '../helpers/poll.ts';
import { startTestServer } from '../helpers/server.ts';
import { storeBackends } from '../helpers/stores.ts';

const T = { timeout: 60_000 };
const pgUrl = process.env.TEST_DATABASE_URL;

/** Opens the same store again after a close: a PGlite data directory, or one PostgreSQL schema. */
function durableStore(kind: 'pglite' | 'postgres') {
  const dir = mkdtempSync(join(tmpdir(), 'sandtrap-events-'));
  const schema = `test_${randomBytes(6).toString('hex')}`;
  return {
    open: (): Promise<Store> =>
      kind === 'pglite'
        ? openStore({ kind: 'pglite', dataDir: dir })
        : openStore({ kind: 'postgres', url: pgUrl as string, schema, poolSize: 4 }),
    async dispose(): Promise<void> {
      rmSync(dir, { recursive: true, force: true });
      if (kind === 'postgres') {
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`drop schema if exists "${schema}" cascade`);
        await client.end();
      }
    },
  };
}

for (const backend of storeBackends()) {
  describe(`REST live events, durable [${backend.name}]`, () => {
    it('resumes after a server restart with exactly the arrivals committed meanwhile', T, async () => {
      const durable = durableStore(backend.name);
      after(() => durable.dispose());
      let server = await startTestServer(await durable.open());
      const ws = await server.workspace();
      const sandbox = await ws.createSandbox({ name: 'restart' });
      const reader = await openEvents(server.apiUrl, ws.key, { sandboxId: sandbox.id });
      await sendRecorded(server.ports.capture, sandbox.id, { method: 'POST', path: '/before', body: 'x' });
      const seen = await reader.next();
      assert.equal((seen.data as any).path, '/before');
      await server.close();
      await reader.ended;

      server = await startTestServer(await durable.open());
      try {
        const missed: string[] = [];
        for (const path of ['/one', '/two', '/three']) {
          missed.push(
            (await sendRecorded(server.ports.capture, sandbox.id, { method: 'POST', path })).requestId,
          );
        }
        const resumed = await openEvents(server.apiUrl, ws.key, {
          sandboxId: sandbox.id,
          lastEventId: reader.stream.lastEventId as string,
        });
        const replay = await resumed.take(3);
        assert.deepEqual(
          replay.map((e) => (e.data as any).id),
          missed,
        );
        await resumed.none(200);
        resumed.close();
      } finally {
        await server.close();
      }
    });

    it('resets a client that stops reading and closes it; memory stays flat', T, async () => {
      const store = await backend.open();
      const server = await startTestServer(store);
      try {
        const ws = await server.workspace();
        const sandbox = await ws.createSandbox({ name: 'slow' });
        // A reader that asks for the stream and then never reads a byte.
        const socket = net.connect(server.ports.api, '127.0.0.1');
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write(
          `GET /api/v1/sandboxes/${sandbox.id}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ws.key}\r\n\r\n`,
        );
        await eventually('the stream to open', () => server.core.liveEvents.openStreams() > 0, 20_000, 10);
        socket.pause();

        v8.setFlagsFromString('--expose-gc');
        const gc = vm.runInNewContext('gc') as () => void;
        gc();
        const before = process.memoryUsage().heapUsed;
        // Each update is a sandbox.updated event of about 1 MB (its mock rules): far more than the stream's
        // backlog bound, and more than the sockets' kernel buffers take.
        const rules = Array.from({ length: 16 }, (_, i) => ({
          method: 'GET',
          pattern: `/big/${i}`,
          statusCode: 200,
          body: 'x'.repeat(60_000),
        }));
        const sent = 40;
        for (let i = 0; i < sent; i++) {
          const res = await ws.api(`/sandboxes/${sandbox.id}/mocks`, {
            method: 'PUT',
            body: JSON.stringify({ mocks: rules.map((r) => ({ ...r, name: `v${i}` })) }),
          });
          assert.equal(res.status, 200);
        }
        await eventually('the slow stream to be closed', () => server.core.liveEvents.openStreams() === 0);
        gc();
        const grown = process.memoryUsage().heapUsed - before;
        // About 40 MB of events were produced for this client; what it left unread is bounded by the backlog.
        assert.ok(grown < 16 * 1024 * 1024, `heap grew by ${(grown / 1048576).toFixed(1)} MB`);

        // Reading now: the events up to the bound, then reset, then the end.
        socket.resume();
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        await new Promise<void>((resolve) => {
          socket.once('end', resolve);
          socket.once('close', resolve);
        });
        const text = Buffer.concat(chunks).toString('utf8');
        const updates = (text.match(/event: sandbox\.updated/g) ?? []).length;
        assert.ok(updates < sent, `only part of the ${sent} events were sent (${updates})`);
        assert.ok(
          text.length < 8 * MAX_BACKLOG_BYTES + 4 * 1_048_576,
          `${text.length} bytes reached the client`,
        );
        assert.match(text, /event: reset\ndata: \{"reason":"slow_consumer"/);
      } finally {
        await server.close();
      }
    });

    it('shutdown ends open streams cleanly', T, async () => {
      const store = await backend.open();
      const server = await startTestServer(store);
      const ws = await server.workspace();
      const reader = await openEvents(server.apiUrl, ws.key);
      // The stream never ends on its own: a close() that waited for it would not settle inside the test.
      await server.close();
      await reader.ended;
      assert.equal(reader.error, undefined);
    });

    it(
      'replays a late commit with a smaller sequence exactly once (PostgreSQL)',
      { ...T, skip: backend.name !== 'postgres' },
      async () => {
        const store = await backend.open();
        const server = await startTestServer(store);
        const ws = await server.workspace();
        const sandbox = await ws.createSandbox({ name: 'concurrent' });
        const reader = await openEvents(server.apiUrl, ws.key, { sandboxId: sandbox.id });
        const startId = reader.stream.lastEventId as string;
        // An older transaction takes its position (sequence) first and commits last.
        const held = await store.db.connection().execute(async (conn) => {
          await sql`begin`.execute(conn);
          const lateId = randomUUID();
          await sql`insert into requests (id, sandbox_id, received_at, method, target, http_version, path,
              headers, body, size_bytes, mock_status_code)
            values (${lateId}, ${sandbox.id}, now(), 'POST', '/late', '1.1', '/late', '[]', '\\x', 0, 200)`.execute(
            conn,
          );
          const early = await sendRecorded(server.ports.capture, sandbox.id, {
            method: 'POST',
            path: '/early',
          });
          // Committed, but behind an open older transaction: not sent yet (a seq > last reader would send it
          // now and then never send /late).
          await reader.none(300);
          await sql`commit`.execute(conn);
          return { lateId, earlyId: early.requestId };
        });
        server.core.bus.publish({ kind: 'request', sandboxId: sandbox.id, id: held.lateId });
        const live = await reader.take(2);
        assert.deepEqual(
          live.map((e) => (e.data as any).id),
          [held.lateId, held.earlyId],
        );
        // A client that had seen nothing after the start gets both, once each.
        const resumed = await openEvents(server.apiUrl, ws.key, {
          sandboxId: sandbox.id,
          lastEventId: startId,
        });
        const replay = await resumed.take(2);
        assert.deepEqual(
          replay.map((e) => e.id),
          live.map((e) => e.id),
        );
        await resumed.none(200);
        // And one resuming after /late (the first of the two) gets /early only.
        const after1 = await openEvents(server.apiUrl, ws.key, {
          sandboxId: sandbox.id,
          lastEventId: live[0]?.id as string,
        });
        assert.equal(((await after1.next()).data as any).id, held.earlyId);
        await after1.none(200);
        for (const r of [reader, resumed, after1]) r.close();
        await server.close();
      },
    );
  });
}
