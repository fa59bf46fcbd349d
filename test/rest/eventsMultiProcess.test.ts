// Live events across two real `sandtrap serve` processes on one PostgreSQL database: a stream on A sees
// arrivals and changes committed by B, woken by LISTEN/NOTIFY (before A's first periodic re-check, told by
// the order of events, not by a stopwatch), and an id handed out by A resumes exactly on B. Runs only when
// TEST_DATABASE_URL is set; uses a fresh database.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sendRecorded } from '../helpers/captureClient.ts';
import { openEvents } from '../helpers/eventStream.ts';
import { needsPostgres, useTwoServers } from '../helpers/twoServers.ts';

/**
 * A stream's process reads on every 15 s after its first stream opened, notification or not. A wait on A
 * opened just before the stream ends on its own timer after this long, before that first re-check: what the
 * stream shows while the wait is still open came by the notification.
 */
const REFERENCE_SECONDS = 12;

describe('live events across two serve processes on one PostgreSQL', { skip: needsPostgres }, () => {
  const servers = useTwoServers('sandtrap_ev');

  test(
    'a stream on A sees what B commits, and resumes on B from an id of A',
    { timeout: 30_000 },
    async () => {
      const A = servers.a();
      const B = servers.b();
      const key = servers.key();
      const created = await fetch(`${B.apiUrl}/api/v1/sandboxes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'cross' }),
      });
      assert.equal(created.status, 201);
      const sandbox = (await created.json()) as { id: string };
      // A message wait: the request events below neither match nor end it; only its timer does.
      let referenceEnded = false;
      const reference = fetch(
        `${A.apiUrl}/api/v1/sandboxes/${sandbox.id}/messages/wait?timeoutSeconds=${REFERENCE_SECONDS}`,
        { headers: { authorization: `Bearer ${key}` } },
      )
        .then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        })
        .finally(() => (referenceEnded = true));
      reference.catch(() => undefined);
      const onA = await openEvents(A.apiUrl, key, { sandboxId: sandbox.id });

      const sent = await sendRecorded(B.ports.capture, sandbox.id, {
        method: 'POST',
        path: '/from-b',
        body: 'x',
      });
      const arrival = await onA.next();
      assert.equal(arrival.event, 'request.received');
      assert.equal((arrival.data as any).id, sent.requestId);

      const patched = await fetch(`${B.apiUrl}/api/v1/sandboxes/${sandbox.id}/requests/${sent.requestId}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"isRead":true}',
      });
      assert.ok(patched.ok);
      const updated = await onA.next();
      assert.equal(updated.event, 'request.updated');
      assert.equal(referenceEnded, false, "B's commits reached A's stream before A's first re-check");
      assert.equal(await reference, 204, 'the reference wait ended on its timer');
      onA.close();
      await onA.ended;

      const missed: string[] = [];
      for (const path of ['/x', '/y']) {
        missed.push((await sendRecorded(A.ports.capture, sandbox.id, { method: 'POST', path })).requestId);
      }
      const onB = await openEvents(B.apiUrl, key, {
        sandboxId: sandbox.id,
        lastEventId: onA.stream.lastEventId as string,
      });
      const replay = await onB.take(2);
      assert.deepEqual(
        replay.map((e) => (e.data as any).id),
        missed,
      );
      await onB.none(300);
      onB.close();
    },
  );
});
