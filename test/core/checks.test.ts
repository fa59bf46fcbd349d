// The message checks' core: spam rules fire on what they name and stay quiet otherwise, the HTML report
// places features in the source and scores them, and the link check follows redirects under the webhooks'
// target policy against a local HTTP server.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { htmlCompatibility } from '../../src/core/checks/htmlCompat.ts';
import { checkLink, checkMessageLinks } from '../../src/core/checks/linkCheck.ts';
import { spamScore, SPAM_THRESHOLD } from '../../src/core/checks/spamScore.ts';

const GOOD_HEADERS = [
  { name: 'From', value: 'Acme <news@acme.test>' },
  { name: 'Date', value: 'Tue, 03 Feb 2026 10:00:00 +0000' },
  { name: 'Message-ID', value: '<1@acme.test>' },
  { name: 'List-Unsubscribe', value: '<https://acme.test/u>' },
];
const ids = (r: ReturnType<typeof spamScore>) => r.hits.map((h) => h.id);

describe('spam-style score', () => {
  it('a plain, well-formed mail scores 0 with no hits', () => {
    const r = spamScore({
      subject: 'Your March invoice',
      headers: GOOD_HEADERS,
      textBody: 'Hello, your invoice is attached. See https://acme.test/invoices',
      htmlBody:
        '<p>Hello, your invoice is attached. See <a href="https://acme.test/invoices">acme.test/invoices</a></p>',
    });
    assert.deepEqual(r.hits, []);
    assert.equal(r.score, 0);
    assert.equal(r.isSpam, false);
  });

  it('names each missing header, the capitals, exclamations, phrases and a lying link', () => {
    const r = spamScore({
      subject: 'FREE MONEY WAITING!!!',
      headers: [],
      textBody: '',
      htmlBody:
        '<p>Click here to claim!!! Act now.</p><a href="http://evil.test/login">www.mybank.test</a>' +
        '<a href="http://203.0.113.7/x">more</a>',
    });
    for (const id of [
      'MISSING_DATE',
      'MISSING_MESSAGE_ID',
      'MISSING_FROM',
      'MISSING_LIST_UNSUBSCRIBE',
      'SUBJECT_ALL_CAPS',
      'SUBJECT_EXCLAMATIONS',
      'BODY_EXCLAMATIONS',
      'BLOCKLISTED_PHRASE',
      'HTML_ONLY',
      'LINK_TEXT_DOMAIN_MISMATCH',
      'LINK_TO_IP_ADDRESS',
    ]) {
      assert.ok(ids(r).includes(id), `${id} fires: ${ids(r).join(', ')}`);
    }
    const mismatch = r.hits.find((h) => h.id === 'LINK_TEXT_DOMAIN_MISMATCH');
    assert.match(mismatch?.explanation ?? '', /"www\.mybank\.test" goes to evil\.test/);
    assert.match(
      r.hits.find((h) => h.id === 'BLOCKLISTED_PHRASE')?.explanation ?? '',
      /"click here".*"act now"/,
    );
    assert.equal(r.score, Math.round(r.hits.reduce((s, h) => s + h.score, 0) * 10) / 10);
    assert.ok(r.score >= SPAM_THRESHOLD);
    assert.equal(r.isSpam, true);
  });

  it('an image-only mail and markup-heavy HTML are flagged', () => {
    const imageOnly = spamScore({
      subject: 'Spring sale',
      headers: GOOD_HEADERS,
      textBody: null,
      htmlBody:
        '<table><tr><td><img src="https://acme.test/a.png"><img src="https://acme.test/b.png"></td></tr></table>',
    });
    assert.ok(ids(imageOnly).includes('IMAGE_ONLY'));
    const heavy = spamScore({
      subject: 'Spring sale',
      headers: GOOD_HEADERS,
      textBody: 'Spring sale',
      htmlBody: `<div style="${'color:red;'.repeat(200)}">Spring sale, see our offers in the shop today</div>`,
    });
    assert.ok(ids(heavy).includes('HTML_LOW_TEXT_RATIO'), ids(heavy).join(', '));
    assert.ok(!ids(heavy).includes('IMAGE_ONLY'));
  });
});

describe('HTML compatibility', () => {
  const HTML = [
    '<!doctype html><html><head><style>',
    '.a { display: flex; }',
    '</style></head>',
    '<body><div style="border-radius: 4px">hi</div>',
    '<video src="https://acme.test/v.mp4"></video></body></html>',
  ].join('\n');

  it('lists the features some clients lack, with their line and column, clients and versions', () => {
    const r = htmlCompatibility(HTML);
    assert.equal(r.hasHtml, true);
    assert.ok(r.clientsChecked > 30, `most clients checked (${r.clientsChecked})`);
    const video = r.features.find((f) => f.title === '<video> element');
    assert.ok(video, r.features.map((f) => f.title).join(', '));
    assert.deepEqual(video.positions, [{ line: 5, column: 1 }]);
    const outlook = video.clients.find((c) => c.client === 'outlook.windows');
    assert.equal(outlook?.support, 'none');
    assert.equal(outlook?.name, 'Outlook Windows');
    assert.ok((outlook?.versions.length ?? 0) > 0);
    assert.match(video.url ?? '', /caniemail\.com\/features\/html-video/);
    const radius = r.features.find((f) => f.title === 'border-radius');
    assert.equal(radius?.positions[0]?.line, 4);
    // Scores are per cent of clients; the total is over every (feature, client) pair.
    for (const f of r.features) {
      const s = f.score.supported + f.score.partial + f.score.unsupported;
      assert.ok(Math.abs(s - 100) < 0.5, `${f.title} sums to 100 (${s})`);
    }
    assert.equal(r.total.features, r.features.length);
    assert.ok(r.total.supported > 0 && r.total.supported < 100);
  });

  it('a mail without HTML reports hasHtml false and nothing else', () => {
    const r = htmlCompatibility(null);
    assert.equal(r.hasHtml, false);
    assert.deepEqual(r.features, []);
  });
});

describe('link check', () => {
  let server: http.Server;
  let base: string;
  const hits: string[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/a') res.writeHead(301, { location: '/b' }).end();
      else if (req.url === '/b') res.writeHead(302, { location: `${base}/ok` }).end();
      else if (req.url === '/ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('fine');
      else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
      else if (req.url === '/private') res.writeHead(302, { location: 'http://10.1.2.3/inside' }).end();
      else res.writeHead(404).end('missing');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const loopbackOk = { targets: [], loopbackBound: true };

  it('follows a redirect chain to its end and reports each hop', async () => {
    const r = await checkLink(`${base}/a`, 'start', loopbackOk);
    assert.equal(r.status, 'ok');
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.redirects, [
      { url: `${base}/a`, statusCode: 301 },
      { url: `${base}/b`, statusCode: 302 },
    ]);
    assert.equal(r.finalUrl, `${base}/ok`);
  });

  it('a 404 is broken; a redirect loop stops after five', async () => {
    const missing = await checkLink(`${base}/nope`, '', loopbackOk);
    assert.equal(missing.status, 'broken');
    assert.equal(missing.statusCode, 404);
    const loop = await checkLink(`${base}/loop`, '', loopbackOk);
    assert.equal(loop.status, 'broken');
    assert.match(loop.reason ?? '', /more than 5 redirects/);
  });

  it('refuses targets the webhook policy refuses, naming the rule, without connecting', async () => {
    const before = hits.length;
    const notBound = await checkLink(`${base}/ok`, '', { targets: [], loopbackBound: false });
    assert.equal(notBound.status, 'refused');
    assert.match(notBound.reason ?? '', /loopback.*default rule allows public addresses only/);
    const listed = await checkLink(`${base}/ok`, '', { targets: ['203.0.113.0/24'], loopbackBound: true });
    assert.match(listed.reason ?? '', /not in WEBHOOK_TARGETS/);
    assert.equal(hits.length, before, 'nothing reached the server');
    // A redirect into a private network is refused at that hop.
    const viaRedirect = await checkLink(`${base}/private`, '', loopbackOk);
    assert.equal(viaRedirect.status, 'refused');
    assert.deepEqual(viaRedirect.redirects, [{ url: `${base}/private`, statusCode: 302 }]);
    assert.match(viaRedirect.reason ?? '', /10\.1\.2\.3.*private/);
  });

  it('a closed port is unreachable, said per link; app links are skipped, not fetched', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await checkMessageLinks(
      {
        textBody: null,
        htmlBody: `<a href="${base}/ok">ok</a><a href="http://127.0.0.1:${port}/x">gone</a><a href="myapp://open">app</a>`,
      },
      loopbackOk,
    );
    assert.deepEqual(
      r.links.map((l) => [l.text, l.status]),
      [
        ['ok', 'ok'],
        ['gone', 'unreachable'],
        ['app', 'skipped'],
      ],
    );
    assert.match(r.links[1]?.reason ?? '', /refused the connection/);
    assert.equal(r.checked, 2);
    assert.equal(r.errors, 1);
  });
});
