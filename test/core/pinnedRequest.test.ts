// pinnedRequest: an outbound request reaches only the vetted addresses, however an address is spelled.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { failure, pinnedRequest } from '../../src/core/pinnedRequest.ts';

/** Sends the request and reads its status, or the error as failure() words it. */
function send(req: http.ClientRequest): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: failure(err, 5_000) }));
    req.end();
  });
}

describe('pinnedRequest', () => {
  let server: http.Server;
  let port: number;
  const hosts: string[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  it('connects to a name through the vetted address, whatever DNS would say, and sends the name as Host', async () => {
    const req = pinnedRequest(
      `http://hooks.example.invalid:${port}/x`,
      [{ address: '127.0.0.1', family: 4 }],
      {
        method: 'GET',
        timeoutMs: 5_000,
      },
    );
    assert.deepEqual(await send(req), { status: 200 });
    assert.equal(hosts.at(-1), `hooks.example.invalid:${port}`);
  });

  it('accepts an IPv4-mapped IPv6 address however it is written', async () => {
    for (const vetted of ['::ffff:127.0.0.1', '::ffff:7f00:1']) {
      const req = pinnedRequest(`http://[::ffff:127.0.0.1]:${port}/`, [{ address: vetted, family: 6 }], {
        method: 'GET',
        timeoutMs: 5_000,
      });
      assert.deepEqual(await send(req), { status: 200 }, vetted);
    }
  });

  it('refuses a connection to an IP literal that is not the vetted address', async () => {
    const req = pinnedRequest(`http://127.0.0.1:${port}/`, [{ address: '127.0.0.2', family: 4 }], {
      method: 'GET',
      timeoutMs: 5_000,
    });
    assert.deepEqual(await send(req), { error: 'connected to 127.0.0.1, which was not the vetted address' });
  });
});
