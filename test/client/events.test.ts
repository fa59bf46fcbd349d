// The typed client's SSE reader (src/client/events.ts) on a real server's stream: the bytes one sandbox's stream
// really sent, fed back split at every byte boundary, as sent (LF) and with CRLF line ends (so a split falls
// between \r and \n), keep every event's id, name and data; and a dropped connection resumes from the last id.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, it } from 'node:test';
import { EventStream, type LiveEvent } from '../../src/client/events.ts';
import { sendRecorded } from '../helpers/captureClient.ts';
import { openEvents } from '../helpers/eventStream.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const T = { timeout: 120_000 };

/** Every event and the final lastEventId, read by the client from `chunks` delivered one by one as given. */
async function readChunks(
  url: string,
  key: string,
  sandboxId: string,
  chunks: Uint8Array[],
): Promise<{ events: LiveEvent[]; lastEventId: string | undefined }> {
  const stream = new EventStream({
    baseUrl: url,
    apiKey: key,
    sandboxId,
    // The recorded answer again, in exactly these chunks (a socket gives no control over where reads split).
    fetch: async (input) => {
      assert.equal(String(input), `${url}/api/v1/sandboxes/${sandboxId}/events`);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    },
  });
  const events: LiveEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, lastEventId: stream.lastEventId };
}

describeEachStore('client event stream', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
  });
  after(() => server.close());

  it('keeps every id, name and data when the stream splits at any byte, LF or CRLF', T, async () => {
    const sandbox = await ws.createSandbox({ name: 'splits' });
    // The raw bytes, and what the client read over the same live connection's sibling.
    const raw = await ws.api(`/sandboxes/${sandbox.id}/events`);
    assert.equal(raw.status, 200);
    const recorded = raw.arrayBuffer();
    const live = await openEvents(server.apiUrl, ws.key, { sandboxId: sandbox.id });

    const transport = sandboxTransport(server.ports.smtp, sandbox);
    try {
      // Multi-byte UTF-8 in the data, so some splits also fall inside a character.
      await transport.sendMail({
        from: 'app@example.com',
        to: 'user@example.com',
        subject: 'Grüße ✓ 🎉 naïve',
        text: 'line one\r\nline two',
      });
    } finally {
      transport.close();
    }
    const received = await live.next();
    assert.equal(received.event, 'message.received');
    const request = (await sendRecorded(server.ports.capture, sandbox.id, { method: 'POST', path: '/hook' }))
      .requestId;
    const read = await ws.api(`/sandboxes/${sandbox.id}/requests/${request}`, {
      method: 'PATCH',
      body: '{"isRead":true}',
    });
    assert.ok(read.ok, `PATCH: ${read.status}`);
    assert.equal((await ws.api(`/sandboxes/${sandbox.id}`, { method: 'DELETE' })).status, 204);
    const rest = await live.take(3);
    await live.ended;
    const expected = [received, ...rest];
    assert.deepEqual(
      expected.map((e) => e.event),
      ['message.received', 'request.received', 'request.updated', 'sandbox.deleted'],
    );
    assert.equal((received.data as any).subject, 'Grüße ✓ 🎉 naïve');
    assert.equal(new Set(expected.map((e) => e.id)).size, expected.length, 'each event has its own id');

    const lf = Buffer.from(await recorded);
    const text = lf.toString('utf8');
    assert.match(text, /^retry: \d+\n\nid: [^\n]+\n\n/, 'the recording starts as every stream does');
    // The same stream as a proxy normalizing line ends would pass it on: SSE allows \r\n, \r and \n.
    const crlf = Buffer.from(text.replaceAll('\n', '\r\n'));
    const lastId = expected.at(-1)?.id;

    for (const [name, bytes] of [
      ['LF', lf],
      ['CRLF', crlf],
    ] as const) {
      const whole = await readChunks(server.apiUrl, ws.key, sandbox.id, [bytes]);
      assert.deepEqual(whole.events, expected, `${name} in one chunk`);
      const bytewise = await readChunks(
        server.apiUrl,
        ws.key,
        sandbox.id,
        [...bytes].map((b) => Uint8Array.of(b)),
      );
      assert.deepEqual(bytewise.events, expected, `${name} one byte at a time`);
      let crlfSplits = 0;
      for (let at = 1; at < bytes.length; at++) {
        if (bytes[at - 1] === 0x0d && bytes[at] === 0x0a) crlfSplits++;
        const split = await readChunks(server.apiUrl, ws.key, sandbox.id, [
          bytes.subarray(0, at),
          bytes.subarray(at),
        ]);
        assert.deepEqual(split.events, expected, `${name} split after byte ${at} of ${bytes.length}`);
        assert.equal(split.lastEventId, lastId, `${name} split after byte ${at}: lastEventId`);
      }
      if (name === 'CRLF') assert.ok(crlfSplits >= 10, `${crlfSplits} splits between \\r and \\n`);
    }
  });

  it('resumes from the last id after the connection drops, each event once and in order', T, async () => {
    const sandbox = await ws.createSandbox({ name: 'resume' });
    // A real hop between client and server that can cut every open connection, as a restarting proxy does.
    const sockets = new Set<Socket>();
    const seenLastEventIds: Array<string | undefined> = [];
    const proxy = http.createServer((req, res) => {
      seenLastEventIds.push(req.headers['last-event-id'] as string | undefined);
      const upstream = http.request(
        `${server.apiUrl}${req.url}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      // A cut on either side ends the other, as it would through a proxy.
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
      res.on('close', () => upstream.destroy());
    });
    proxy.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

    let opens = 0;
    let wakeOpen: (() => void) | undefined;
    const stream = new EventStream({
      baseUrl: `${proxyUrl}/api/v1`,
      apiKey: ws.key,
      sandboxId: sandbox.id,
      reconnect: true,
      onOpen: () => {
        opens++;
        wakeOpen?.();
      },
    });
    const opened = (n: number) =>
      new Promise<void>((resolve) => {
        wakeOpen = () => opens >= n && resolve();
        wakeOpen();
      });
    const paths: string[] = [];
    const ids: string[] = [];
    let wakeEvent: (() => void) | undefined;
    const reading = (async () => {
      for await (const event of stream) {
        ids.push(event.id);
        paths.push(event.event === 'request.received' ? (event.data as any).path : event.event);
        wakeEvent?.();
      }
    })();
    const events = (n: number) =>
      new Promise<void>((resolve) => {
        wakeEvent = () => paths.length >= n && resolve();
        wakeEvent();
      });
    const capture = (path: string) =>
      sendRecorded(server.ports.capture, sandbox.id, { method: 'POST', path, body: 'x' });

    try {
      await opened(1);
      await capture('/a');
      await capture('/b');
      await events(2);
      assert.equal(stream.lastEventId, ids[1]);
      for (const socket of sockets) socket.destroy();
      // Committed while the client waits out the server's retry: the resume must replay them.
      await capture('/c');
      await capture('/d');
      await opened(2);
      await capture('/e');
      assert.equal((await ws.api(`/sandboxes/${sandbox.id}`, { method: 'DELETE' })).status, 204);
      await reading;
      assert.deepEqual(paths, ['/a', '/b', '/c', '/d', '/e', 'sandbox.deleted']);
      assert.equal(new Set(ids).size, ids.length);
      assert.deepEqual(seenLastEventIds, [undefined, ids[1]], 'the second connection resumed after /b');
      assert.equal(stream.lastEventId, ids.at(-1));
    } finally {
      stream.close();
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
