// The client metadata document fetcher against real https servers: URL rules, the SSRF address guard (literals,
// names, mapped and translated forms), size and time limits, redirects, content checks and the cache.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { generate } from 'selfsigned';
import { nonPublicAddress } from '../../src/core/oauth/addressPolicy.ts';
import {
  checkClientIdUrl,
  createClientMetadataFetcher,
  maxAgeFrom,
  CACHE_ENTRIES,
} from '../../src/core/oauth/clientMetadataFetch.ts';
import type { FetchedDocument } from '../../src/core/oauth/types.ts';
import { testClock } from '../helpers/clock.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface DocumentServer {
  port: number;
  /** Requests seen per path (query included). */
  hits: Map<string, number>;
  /** The request headers of the last request per path. */
  headers: Map<string, IncomingMessage['headers']>;
  route(path: string, handler: Handler): void;
  url(path: string, host?: string): string;
  close(): Promise<void>;
}

async function selfSignedPair(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
          { type: 7, ip: '::ffff:7f00:1' },
        ],
      },
    ],
  } as object);
  return { key: pems.private, cert: pems.cert };
}

async function startDocumentServer(
  tls: { key: string; cert: string },
  listenOn = '127.0.0.1',
): Promise<DocumentServer> {
  const routes = new Map<string, Handler>();
  const hits = new Map<string, number>();
  const headers = new Map<string, IncomingMessage['headers']>();
  const server: Server = createServer(tls, (req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    headers.set(path, req.headers);
    const handler = routes.get(path.replace(/\?.*$/, ''));
    if (handler === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such route');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, listenOn, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    hits,
    headers,
    route: (path, handler) => routes.set(path, handler),
    url: (path, host = '127.0.0.1') => `https://${host}:${port}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (body: unknown, extra: Record<string, string> = {}): Handler => {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...extra }).end(JSON.stringify(body));
  };
};

function refused(result: FetchedDocument): string {
  assert.equal(result.ok, false, `expected a refusal, got ${JSON.stringify(result)}`);
  return (result as { description: string }).description;
}

const clientDocument = (url: string) => ({
  client_id: url,
  client_name: 'Test client',
  redirect_uris: ['http://127.0.0.1:33418/callback'],
});

let tls: { key: string; cert: string };
let server: DocumentServer;

before(async () => {
  tls = await selfSignedPair();
  server = await startDocumentServer(tls);
});

after(async () => {
  await server.close();
});

describe('client_id URL rules', () => {
  const fetcher = createClientMetadataFetcher({ allowPrivate: false });
  const cases: [string, RegExp][] = [
    ['http://example.com/client.json', /must be an https URL/],
    ['ftp://example.com/client.json', /must be an https URL/],
    ['https://example.com', /must have a path after the host, such as https:\/\/example\.com\/client\.json/],
    ['https://example.com/', /must have a path after the host/],
    ['https://example.com/?a=1', /must have a path after the host/],
    ['https://example.com/client.json#x', /must not contain a fragment/],
    ['https://example.com/client.json#', /must not contain a fragment/],
    ['https://user:pw@example.com/client.json', /must not contain a username or password/],
    ['https://user@example.com/client.json', /must not contain a username or password/],
    ['https://example.com/a/../client.json', /"\." or "\.\." path segments/],
    ['https://example.com/a/./client.json', /"\." or "\.\." path segments/],
    ['https://example.com/a/%2e%2E/client.json', /"\." or "\.\." path segments/],
    ['https://example.com/a\\..\\client.json', /"\." or "\.\." path segments/],
    ['https://example.com/..', /"\." or "\.\." path segments/],
    ['not a url', /contains spaces or control characters/],
    ['client.json', /is not a URL/],
    ['https://exa\tmple.com/client.json', /spaces or control characters/],
    [' https://example.com/client.json', /spaces or control characters/],
    ['', /client_id is empty/],
    [`https://example.com/${'a'.repeat(2100)}`, /at most 2048/],
  ];
  for (const [url, expected] of cases) {
    it(`refuses ${JSON.stringify(url.slice(0, 60))} before any lookup`, async () => {
      assert.match(refused(await fetcher.fetch(url)), expected);
    });
  }

  it('accepts https URLs with a path, a port and a query', () => {
    for (const url of [
      'https://example.com/client.json',
      'https://example.com:8443/oauth/client',
      'https://EXAMPLE.com/c?v=2',
      'https://[2606:4700::1111]/client.json',
    ]) {
      assert.ok(checkClientIdUrl(url) instanceof URL, url);
    }
  });
});

describe('address guard (allowPrivate off)', () => {
  const fetcher = createClientMetadataFetcher({ allowPrivate: false });

  before(() => server.route('/client.json', json({ any: 'thing' })));

  const literals: [string, RegExp][] = [
    ['127.0.0.1', /names 127\.0\.0\.1, a loopback address/],
    ['[::1]', /names ::1, a loopback address/],
    ['[::ffff:127.0.0.1]', /names ::ffff:7f00:1, a loopback address/],
    ['169.254.169.254', /169\.254\.169\.254, a link-local address/],
    ['10.0.0.5', /10\.0\.0\.5, a private address/],
    ['192.168.1.20', /192\.168\.1\.20, a private address/],
    ['172.16.4.4', /a private address/],
    ['100.64.0.1', /100\.64\.0\.1, a carrier-grade NAT/],
    ['[fc00::1]', /fc00::1, a unique-local address/],
    ['[fd12:3456::1]', /a unique-local address/],
    ['[fe80::1]', /a link-local address/],
    ['0.0.0.0', /an unspecified address/],
    ['[::]', /an unspecified address/],
    ['224.0.0.1', /a multicast address/],
    ['[ff02::1]', /a multicast address/],
    ['255.255.255.255', /the broadcast address/],
    ['240.0.0.1', /a reserved address/],
    ['[2001:db8::1]', /a reserved address/],
    ['[64:ff9b::a00:5]', /a private address/],
    ['[64:ff9b::7f00:1]', /a loopback address/],
    ['[::127.0.0.1]', /outside the public IPv6 range/],
    ['[2002:7f00:1::1]', /a 6to4 tunnel address/],
    ['[::ffff:0:7f00:1]', /an IPv4-translated address/],
    // The URL parser turns these into 127.0.0.1, which is what a connect would reach.
    ['2130706433', /names 127\.0\.0\.1, a loopback address/],
    ['0x7f.1', /names 127\.0\.0\.1, a loopback address/],
    ['0177.0.0.1', /names 127\.0\.0\.1, a loopback address/],
    ['127.1', /names 127\.0\.0\.1, a loopback address/],
  ];
  for (const [host, expected] of literals) {
    it(`refuses the literal ${host} without connecting`, async () => {
      const before = server.hits.get('/client.json') ?? 0;
      const description = refused(await fetcher.fetch(server.url('/client.json', host)));
      assert.match(description, expected);
      assert.match(description, /set OAUTH_ALLOW_PRIVATE_CLIENT_URLS=true to allow it for development/);
      assert.equal(server.hits.get('/client.json') ?? 0, before);
    });
  }

  it('refuses a name that resolves to loopback (localhost) without connecting', async () => {
    const before = server.hits.get('/client.json') ?? 0;
    const description = refused(await fetcher.fetch(server.url('/client.json', 'localhost')));
    assert.match(description, /resolves to (127\.0\.0\.1|::1), a loopback address; set OAUTH_ALLOW_PRIVATE/);
    assert.equal(server.hits.get('/client.json') ?? 0, before);
  });

  it('says when a name does not resolve', async () => {
    const description = refused(await fetcher.fetch('https://no-such-host.invalid/client.json'));
    assert.match(description, /the host no-such-host\.invalid does not resolve/);
  });

  it('refuses every private IPv4 address in every URL notation (fuzzed)', async () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const privateV4 = fc.oneof(
      fc.tuple(fc.constant(127), octet, octet, octet),
      fc.tuple(fc.constant(10), octet, octet, octet),
      fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
      fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
      fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet),
      fc.tuple(fc.constant(0), octet, octet, octet),
      fc.tuple(fc.integer({ min: 224, max: 255 }), octet, octet, octet),
    );
    const notations = (o: number[]): string[] => {
      const n = ((o[0]! << 24) >>> 0) + (o[1]! << 16) + (o[2]! << 8) + o[3]!;
      const hex = (a: number, b: number) => ((a << 8) + b).toString(16);
      return [
        o.join('.'),
        String(n),
        `0x${n.toString(16)}`,
        o.map((x) => `0${x.toString(8)}`).join('.'),
        `${o[0]}.${(o[1]! << 16) + (o[2]! << 8) + o[3]!}`,
        `[::ffff:${o.join('.')}]`,
        `[::ffff:${hex(o[0]!, o[1]!)}:${hex(o[2]!, o[3]!)}]`,
        `[0:0:0:0:0:ffff:${o.join('.')}]`,
        `[64:ff9b::${o.join('.')}]`,
      ];
    };
    await fc.assert(
      fc.asyncProperty(privateV4, fc.nat(8), async (octets, which) => {
        const host = notations(octets)[which]!;
        const description = refused(await fetcher.fetch(`https://${host}:${server.port}/client.json`));
        assert.match(description, /names \S+, an? [^;]+; set OAUTH_ALLOW_PRIVATE_CLIENT_URLS=true/);
      }),
      { numRuns: 300 },
    );
    assert.equal(server.hits.get('/client.json') ?? 0, 0);
  });
});

describe('address classification', () => {
  const table: [string, string | undefined][] = [
    ['8.8.8.8', undefined],
    ['1.1.1.1', undefined],
    ['172.32.0.1', undefined],
    ['172.15.255.255', undefined],
    ['100.63.255.255', undefined],
    ['100.128.0.1', undefined],
    ['192.169.0.1', undefined],
    ['2606:4700::1111', undefined],
    ['2a00:1450:4001:80b::200e', undefined],
    ['::ffff:8.8.8.8', undefined],
    ['::ffff:808:808', undefined],
    ['64:ff9b::8.8.8.8', undefined],
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['0:0:0:0:0:0:0:1', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['10.255.255.255', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.0.0', 'a private address'],
    ['::ffff:192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address'],
    ['::ffff:169.254.169.254', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['100.64.0.0', 'a carrier-grade NAT (100.64.0.0/10) address'],
    ['100.127.255.255', 'a carrier-grade NAT (100.64.0.0/10) address'],
    ['fc00::', 'a unique-local address'],
    ['fdff:ffff::1', 'a unique-local address'],
    ['fec0::1', 'a site-local address'],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['224.0.0.251', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['ff02::fb', 'a multicast address'],
    ['255.255.255.255', 'the broadcast address'],
    ['192.0.2.1', 'a reserved address'],
    ['198.18.0.1', 'a reserved address'],
    ['203.0.113.9', 'a reserved address'],
    ['2001:db8::1', 'a reserved address'],
    ['64:ff9b::127.0.0.1', 'a loopback address'],
    ['64:ff9b::a9fe:a9fe', 'a link-local address'],
    ['64:ff9b:1::1', 'a local-use NAT64 address'],
    ['::ffff:0:127.0.0.1', 'an IPv4-translated address'],
    // ipaddr.js reads a dotted tail after :: as the IPv4 address itself; refused either way.
    ['::127.0.0.1', 'a loopback address'],
    ['::7f00:1', 'an address outside the public IPv6 range (2000::/3)'],
    ['4000::1', 'an address outside the public IPv6 range (2000::/3)'],
    ['2002:a00:1::', 'a 6to4 tunnel address'],
    ['2001:0:4136:e378::1', 'a Teredo tunnel address'],
    ['localhost', 'not an IP address'],
    ['', 'not an IP address'],
    ['1.2.3', 'not an IP address'],
  ];
  for (const [address, expected] of table) {
    it(`${JSON.stringify(address)} → ${expected ?? 'public'}`, () => {
      assert.equal(nonPublicAddress(address), expected);
    });
  }

  it('judges every IPv4-mapped and NAT64 form as the IPv4 address inside it (fuzzed)', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const plain = nonPublicAddress(v4);
        assert.equal(nonPublicAddress(`::ffff:${v4}`), plain);
        assert.equal(nonPublicAddress(`64:ff9b::${v4}`), plain);
      }),
      { numRuns: 2000 },
    );
  });

  it('passes an IPv6 address only inside 2000::/3 or as a mapped or NAT64 form of a public IPv4 (fuzzed)', () => {
    const nat64 = ipaddr.parseCIDR('64:ff9b::/96');
    fc.assert(
      fc.property(fc.ipV6(), (v6) => {
        if (nonPublicAddress(v6) !== undefined) return;
        const ip = ipaddr.IPv6.parse(v6);
        assert.ok(ip.isIPv4MappedAddress() || ip.match(nat64) || (ip.parts[0]! & 0xe000) === 0x2000, v6);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('fetching (allowPrivate on)', () => {
  const fetcherWith = (extra: Partial<Parameters<typeof createClientMetadataFetcher>[0]> = {}) =>
    // A time limit no busy machine reaches by accident; the tests of the limit set their own.
    createClientMetadataFetcher({ allowPrivate: true, ca: tls.cert, timeoutMs: 30_000, ...extra });

  it('fetches the document, sending Accept and User-Agent, with the default max-age', async () => {
    const clock = testClock();
    const url = server.url('/plain.json');
    server.route('/plain.json', json(clientDocument(url)));
    const before = clock.now().getTime();
    const result = await fetcherWith({ clock }).fetch(url);
    const after = clock.now().getTime();
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.document, clientDocument(url));
    assert.equal(result.maxAgeSeconds, 3_600);
    const fetchedAt = result.fetchedAt.getTime();
    assert.ok(before <= fetchedAt && fetchedAt <= after, 'fetchedAt is during the fetch');
    const headers = server.headers.get('/plain.json')!;
    assert.equal(headers.accept, 'application/json');
    assert.equal(headers['user-agent'], 'sandtrap (client metadata fetch)');
    assert.equal(headers.host, `127.0.0.1:${server.port}`);
  });

  it('fetches through a name (localhost), connecting only to the addresses it vetted', async () => {
    const url = server.url('/named.json', 'localhost');
    server.route('/named.json', json(clientDocument(url)));
    const result = await fetcherWith().fetch(url);
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(server.headers.get('/named.json')!.host, `localhost:${server.port}`);
  });

  it('fetches from an IPv4-mapped IPv6 literal', async () => {
    const url = server.url('/mapped.json', '[::ffff:127.0.0.1]');
    server.route('/mapped.json', json({ client_id: url }));
    const result = await fetcherWith().fetch(url);
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(server.hits.get('/mapped.json'), 1);
  });

  it('fetches from an IPv6 literal ([::1])', async () => {
    const v6 = await startDocumentServer(tls, '::1');
    try {
      const url = v6.url('/v6.json', '[::1]');
      v6.route('/v6.json', json({ client_id: url }));
      const result = await fetcherWith().fetch(url);
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(v6.headers.get('/v6.json')!.host, `[::1]:${v6.port}`);
    } finally {
      await v6.close();
    }
  });

  it('keeps the query string', async () => {
    server.route('/query.json', json({ client_id: 'q' }));
    const result = await fetcherWith().fetch(server.url('/query.json?v=2&x=a%20b'));
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(server.hits.get('/query.json?v=2&x=a%20b'), 1);
  });

  it('accepts application/json with a charset and +json types', async () => {
    server.route('/charset.json', json({ a: 1 }, { 'content-type': 'Application/JSON ; Charset="UTF-8"' }));
    server.route('/plus.json', json({ a: 2 }, { 'content-type': 'application/oauth-client-metadata+json' }));
    const fetcher = fetcherWith();
    assert.ok((await fetcher.fetch(server.url('/charset.json'))).ok);
    assert.ok((await fetcher.fetch(server.url('/plus.json'))).ok);
  });

  it('refuses a certificate it does not trust', async () => {
    server.route('/untrusted.json', json({ a: 1 }));
    const fetcher = createClientMetadataFetcher({ allowPrivate: true });
    const description = refused(await fetcher.fetch(server.url('/untrusted.json')));
    assert.match(description, /its TLS certificate was not accepted \(self[- ]signed certificate/);
  });

  it('says when the host refuses the connection', async () => {
    const closed = await startDocumentServer(tls);
    const url = closed.url('/gone.json');
    await closed.close();
    assert.match(refused(await fetcherWith().fetch(url)), /the host refused the connection/);
  });

  it('refuses a body larger than the limit (declared length)', async () => {
    server.route('/big.json', json({ pad: 'x'.repeat(70 * 1024) }));
    const description = refused(await fetcherWith().fetch(server.url('/big.json')));
    assert.match(description, /is larger than 64 KB; a client metadata document may be at most that/);
  });

  it('stops reading an endless chunked body at the limit', async () => {
    let written = 0;
    server.route('/endless.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024, 0x20);
      const timer = setInterval(() => {
        if (res.destroyed || written > 50 * 1024 * 1024) return clearInterval(timer);
        res.write(chunk);
        written += chunk.length;
      }, 1);
      res.on('close', () => clearInterval(timer));
    });
    // A time limit far beyond the test's: the refusal names the size, so the size limit ended the read.
    const description = refused(
      await fetcherWith({ maxBytes: 8 * 1024, timeoutMs: 600_000 }).fetch(server.url('/endless.json')),
    );
    assert.match(description, /is larger than 8 KB/);
  });

  it('refuses a server whose headers never come, within the time limit', async () => {
    // The server never answers: only the time limit can end the fetch, and the refusal says it did.
    server.route('/silent.json', () => {});
    const description = refused(await fetcherWith({ timeoutMs: 600 }).fetch(server.url('/silent.json')));
    assert.match(description, /did not answer with its whole document within 600 ms/);
  });

  it('refuses a body that trickles in, within the time limit (the limit covers the body)', async () => {
    server.route('/trickle.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = JSON.stringify({ client_name: 'slow'.repeat(20) });
      let i = 0;
      const timer = setInterval(() => {
        if (res.destroyed || i >= text.length) {
          clearInterval(timer);
          if (!res.destroyed) res.end();
          return;
        }
        res.write(text[i++]!);
      }, 50);
      res.on('close', () => clearInterval(timer));
    });
    // The whole body takes about 4.5 s to trickle in and would be accepted: a refusal naming the 700 ms limit
    // means the limit covered the body.
    const description = refused(await fetcherWith({ timeoutMs: 700 }).fetch(server.url('/trickle.json')));
    assert.match(description, /within 700 ms/);
  });

  it('refuses a redirect without following it', async () => {
    server.route('/moved.json', (_req, res) => {
      res.writeHead(302, { location: server.url('/target.json') }).end();
    });
    server.route('/target.json', json({ a: 1 }));
    const description = refused(await fetcherWith().fetch(server.url('/moved.json')));
    assert.match(description, /answered 302, a redirect to https:\/\/127\.0\.0\.1:\d+\/target\.json/);
    assert.match(description, /must be served at the client_id URL itself \(redirects are not followed\)/);
    assert.equal(server.hits.get('/target.json'), undefined);
  });

  const badAnswers: [string, Handler, RegExp][] = [
    [
      'a 404',
      (_req, res) => res.writeHead(404).end(),
      /answered HTTP 404; the document must be served with 200/,
    ],
    ['a 204', (_req, res) => res.writeHead(204).end(), /answered HTTP 204/],
    [
      'HTML',
      (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'),
      /was served as text\/html; the document must be application\/json/,
    ],
    ['no content type', (_req, res) => res.writeHead(200).end('{}'), /was served as no Content-Type/],
    [
      'json-ish text/plain',
      (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('{"a":1}'),
      /was served as text\/plain/,
    ],
    [
      'invalid JSON',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":'),
      /did not return valid JSON/,
    ],
    [
      'a JSON array',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[1,2]'),
      /returned JSON that is not an object/,
    ],
    [
      'JSON null',
      (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('null'),
      /returned JSON that is not an object/,
    ],
    [
      'invalid UTF-8',
      (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])),
      /is not valid UTF-8/,
    ],
    [
      'an unasked-for Content-Encoding',
      (_req, res) =>
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end('x'),
      /Content-Encoding gzip, which was not asked for/,
    ],
    [
      'a connection cut mid-body',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"a":');
        setTimeout(() => res.socket?.destroy(), 20);
      },
      /the connection (broke|closed) before the whole document arrived/,
    ],
  ];
  for (const [name, handler, expected] of badAnswers) {
    it(`refuses ${name}`, async () => {
      const path = `/bad-${name.replace(/\W+/g, '-')}.json`;
      server.route(path, handler);
      assert.match(refused(await fetcherWith().fetch(server.url(path))), expected);
    });
  }

  it('accepts a document with a UTF-8 byte order mark stripped', async () => {
    server.route('/bom.json', (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')])),
    );
    const result = await fetcherWith().fetch(server.url('/bom.json'));
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.document, { a: 1 });
  });
});

describe('cache', () => {
  const fetcherWith = (extra: Partial<Parameters<typeof createClientMetadataFetcher>[0]> = {}) =>
    // A time limit no busy machine reaches by accident; the tests of the limit set their own.
    createClientMetadataFetcher({ allowPrivate: true, ca: tls.cert, timeoutMs: 30_000, ...extra });

  it('answers a second fetch from the cache', async () => {
    server.route('/cached.json', json({ a: 1 }));
    const fetcher = fetcherWith();
    const first = await fetcher.fetch(server.url('/cached.json'));
    const second = await fetcher.fetch(server.url('/cached.json'));
    assert.ok(first.ok && second.ok);
    assert.deepEqual(second, first);
    assert.equal(server.hits.get('/cached.json'), 1);
  });

  it('shares one request between concurrent fetches of a URL', async () => {
    server.route('/concurrent.json', (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}'), 100);
    });
    const fetcher = fetcherWith();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => fetcher.fetch(server.url('/concurrent.json'))),
    );
    assert.ok(results.every((r) => r.ok));
    assert.equal(server.hits.get('/concurrent.json'), 1);
  });

  it('honours max-age: cached until it passes, then fetched again', async () => {
    server.route('/maxage.json', json({ a: 1 }, { 'cache-control': 'public, max-age=120' }));
    const clock = testClock();
    const fetcher = fetcherWith({ clock });
    const first = await fetcher.fetch(server.url('/maxage.json'));
    assert.ok(first.ok);
    assert.equal(first.maxAgeSeconds, 120);
    clock.advance(119_000);
    await fetcher.fetch(server.url('/maxage.json'));
    assert.equal(server.hits.get('/maxage.json'), 1);
    clock.advance(2_000);
    const third = await fetcher.fetch(server.url('/maxage.json'));
    assert.equal(server.hits.get('/maxage.json'), 2);
    assert.ok(third.ok);
    assert.ok(third.fetchedAt.getTime() - first.fetchedAt.getTime() >= 121_000);
  });

  it('clamps max-age to at least 60 s', async () => {
    server.route('/short.json', json({ a: 1 }, { 'cache-control': 'max-age=5' }));
    const clock = testClock();
    const fetcher = fetcherWith({ clock });
    const first = await fetcher.fetch(server.url('/short.json'));
    assert.ok(first.ok);
    assert.equal(first.maxAgeSeconds, 60);
    clock.advance(30_000);
    await fetcher.fetch(server.url('/short.json'));
    assert.equal(server.hits.get('/short.json'), 1);
    clock.advance(31_000);
    await fetcher.fetch(server.url('/short.json'));
    assert.equal(server.hits.get('/short.json'), 2);
  });

  it('does not keep a no-store document, but still returns it', async () => {
    server.route('/nostore.json', json({ a: 1 }, { 'cache-control': 'no-store' }));
    const fetcher = fetcherWith();
    const first = await fetcher.fetch(server.url('/nostore.json'));
    assert.ok(first.ok);
    assert.equal(first.maxAgeSeconds, 0);
    assert.deepEqual(first.document, { a: 1 });
    await fetcher.fetch(server.url('/nostore.json'));
    assert.equal(server.hits.get('/nostore.json'), 2);
  });

  it('remembers a refusal for 30 s, so a bad client_id cannot make us hammer its host', async () => {
    let fail = true;
    server.route('/flaky.json', (req, res) => (fail ? res.writeHead(500).end() : json({ a: 1 })(req, res)));
    const clock = testClock();
    const fetcher = fetcherWith({ clock });
    const first = refused(await fetcher.fetch(server.url('/flaky.json')));
    fail = false;
    clock.advance(29_000);
    assert.equal(refused(await fetcher.fetch(server.url('/flaky.json'))), first);
    assert.equal(server.hits.get('/flaky.json'), 1);
    clock.advance(2_000);
    assert.ok((await fetcher.fetch(server.url('/flaky.json'))).ok);
    assert.equal(server.hits.get('/flaky.json'), 2);
  });

  it(`keeps at most ${CACHE_ENTRIES} entries, evicting the least recently used`, async () => {
    server.route('/lru.json', json({ a: 1 }));
    const fetcher = fetcherWith();
    const url = (i: number) => server.url(`/lru.json?i=${i}`);
    const hits = (i: number) => server.hits.get(`/lru.json?i=${i}`) ?? 0;
    for (let i = 0; i < CACHE_ENTRIES; i++) assert.ok((await fetcher.fetch(url(i))).ok);
    await fetcher.fetch(url(0)); // a hit: 0 becomes the most recently used, 1 the least
    assert.equal(hits(0), 1);
    await fetcher.fetch(url(CACHE_ENTRIES)); // evicts 1
    await fetcher.fetch(url(0));
    assert.equal(hits(0), 1);
    await fetcher.fetch(url(1));
    assert.equal(hits(1), 2);
    await fetcher.fetch(url(CACHE_ENTRIES));
    assert.equal(hits(CACHE_ENTRIES), 1);
  });

  it('does not cache URL refusals (nothing was fetched)', async () => {
    // A flood of malformed client_ids must not push good documents out of the cache.
    server.route('/kept.json', json({ a: 1 }));
    const fetcher = fetcherWith();
    await fetcher.fetch(server.url('/kept.json'));
    for (let i = 0; i < CACHE_ENTRIES + 10; i++) await fetcher.fetch(`http://example.com/${i}`);
    await fetcher.fetch(server.url('/kept.json'));
    assert.equal(server.hits.get('/kept.json'), 1);
  });
});

describe('Cache-Control parsing', () => {
  const table: [string | undefined, number][] = [
    [undefined, 3_600],
    ['', 3_600],
    ['public', 3_600],
    ['max-age=300', 300],
    ['public, max-age=300, must-revalidate', 300],
    ['MAX-AGE=300', 300],
    ['max-age="300"', 300],
    ['max-age=0', 60],
    ['max-age=59', 60],
    ['max-age=86400', 86_400],
    ['max-age=31536000', 86_400],
    ['max-age=-5', 3_600],
    ['max-age=abc', 3_600],
    ['max-age=1e3', 3_600],
    ['no-cache', 60],
    ['no-store', 0],
    ['max-age=600, no-store', 0],
    ['private, max-age=120', 120],
    ['max-age=120, max-age=900', 120],
  ];
  for (const [header, expected] of table) {
    it(`${JSON.stringify(header)} → ${expected} s`, () => assert.equal(maxAgeFrom(header), expected));
  }
});
