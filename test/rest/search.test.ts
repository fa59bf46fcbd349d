// REST `search=` on the message and request lists (issue 39): the query language of src/core/search over
// whole bodies, attachment names, operators, exclusions, phrases and dates; requests by header and body; and
// mistakes as problem+json 400s naming `search`. Mail goes in over SMTP, requests through the capture port.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { Transporter } from 'nodemailer';
import type { components } from '../../openapi/schema.d.ts';
import { sandboxTransport } from '../helpers/mail.ts';
import { assertJson, validationAssertion } from '../helpers/responses.ts';
import { qs } from '../helpers/query.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { LEAK } from '../helpers/fuzzValues.ts';
import { describeEachStore } from '../helpers/stores.ts';

type MessagePage = components['schemas']['MessagePage'];
type RequestPage = components['schemas']['RequestPage'];

const assertValidation = validationAssertion({ messages: true });

/** About 50 KB of body whose last word is `needle`. */
const LONG_BODY = `${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(900)}closing zebraquartz`;

describeEachStore('REST search', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let mailBox: Record<string, any>;
  let hookBox: Record<string, any>;
  let transport: Transporter;
  const ids: Record<string, string> = {};
  let firstAt = '';

  async function searchMail(search: string): Promise<string[]> {
    const page = await assertJson<MessagePage>(
      await ws.api(`/sandboxes/${mailBox.id}/messages${qs({ search })}`),
    );
    return page.items.map((m) => m.subject ?? '');
  }

  async function searchRequests(search: string): Promise<string[]> {
    const page = await assertJson<RequestPage>(
      await ws.api(`/sandboxes/${hookBox.id}/requests${qs({ search })}`),
    );
    return page.items.map((r) => r.path);
  }

  before(async () => {
    server = await startTestServer({ ...getStore(), close: async () => {} }, { RATE_LIMITS: 'off' });
    ws = await server.workspace();
    mailBox = await ws.createSandbox({ name: 'search' });
    hookBox = await ws.createSandbox({ name: 'hooks' });
    transport = sandboxTransport(server.ports.smtp, mailBox, { pool: true, maxConnections: 1 });
    const mails = [
      {
        from: 'Acme Billing <billing@acme.example>',
        to: 'ann@shop.test',
        subject: 'Invoice 1001',
        text: 'Your invoice is attached.',
        attachments: [{ filename: 'invoice-1001.pdf', content: 'pdf bytes' }],
      },
      {
        from: 'Acme News <news@acme.example>',
        to: 'ann@shop.test',
        subject: 'Weekly digest',
        html: `<p>Hello</p><p>${LONG_BODY}</p>`,
      },
      {
        from: 'Globex <hello@globex.test>',
        to: 'bob@shop.test',
        subject: 'Quarterly report',
        text: LONG_BODY,
        attachments: [{ filename: 'q3-figures.xlsx', content: 'sheet' }],
      },
      {
        from: 'Globex <hello@globex.test>',
        to: 'ann@shop.test',
        subject: 'Shipping update',
        text: 'Your parcel has shipped today. The parcel tracking number is below.',
      },
    ];
    for (const mail of mails) {
      await transport.sendMail(mail);
      const page = await assertJson<MessagePage>(await ws.api(`/sandboxes/${mailBox.id}/messages?limit=1`));
      const top = page.items[0];
      assert.ok(top !== undefined);
      ids[mail.subject] = top.id;
      if (firstAt === '') firstAt = top.receivedAt;
      // Two days between mails: before: and after: with a day have a day to tell them apart.
      server.clock.advance(2 * 86_400_000);
    }
    // The newest is read.
    const res = await ws.api(`/sandboxes/${mailBox.id}/messages/${ids['Shipping update']}`, {
      method: 'PATCH',
      body: JSON.stringify({ isRead: true }),
    });
    assert.equal(res.status, 204);

    const capture = `http://127.0.0.1:${server.ports.capture}/${hookBox.id}`;
    for (const [path, init] of [
      [
        '/orders',
        {
          method: 'POST',
          body: '{"sku":"teapot-42","note":"gift wrap"}',
          headers: { 'content-type': 'application/json' },
        },
      ],
      [
        '/signup',
        {
          method: 'POST',
          body: 'email=x%40y.test',
          headers: { 'x-tenant-id': 'violetmoon', 'content-type': 'application/x-www-form-urlencoded' },
        },
      ],
      ['/health?probe=lighthouse%20check', { method: 'GET' }],
    ] as const) {
      const got = await fetch(`${capture}${path}`, init as RequestInit);
      await got.arrayBuffer();
    }
  });

  after(async () => {
    transport.close();
    await server.close();
  });

  describe('200 messages', () => {
    it('from:acme has:attachment finds the one Acme mail with an attachment', async () => {
      assert.deepEqual(await searchMail('from:acme has:attachment'), ['Invoice 1001']);
    });

    it('a word from the end of a 50 KB body finds its mails, text and HTML', async () => {
      assert.deepEqual(await searchMail('zebraquartz'), ['Quarterly report', 'Weekly digest']);
    });

    it("an attachment's file name finds its mail, whole or by a word of it", async () => {
      assert.deepEqual(await searchMail('q3-figures.xlsx'), ['Quarterly report']);
      assert.deepEqual(await searchMail('figures'), ['Quarterly report']);
    });

    it('-exclusion leaves matching mail out', async () => {
      assert.deepEqual(await searchMail('from:acme -invoice'), ['Weekly digest']);
      assert.deepEqual(await searchMail('-from:acme -from:globex'), []);
    });

    it('a quoted phrase needs its words next to each other, in order', async () => {
      assert.deepEqual(await searchMail('"parcel tracking"'), ['Shipping update']);
      assert.deepEqual(await searchMail('"tracking parcel"'), []);
      // Unquoted, the same words match anywhere in the mail.
      assert.deepEqual(await searchMail('tracking parcel'), ['Shipping update']);
    });

    it('a word is a word prefix; subject: and to: read their field only', async () => {
      assert.deepEqual(await searchMail('invoi'), ['Invoice 1001']);
      assert.deepEqual(await searchMail('subject:report'), ['Quarterly report']);
      assert.deepEqual(await searchMail('subject:parcel'), []);
      assert.deepEqual(await searchMail('to:bob'), ['Quarterly report']);
    });

    it('is:unread and is:read', async () => {
      assert.deepEqual(await searchMail('is:read'), ['Shipping update']);
      assert.deepEqual(await searchMail('is:unread'), ['Quarterly report', 'Weekly digest', 'Invoice 1001']);
      assert.deepEqual(await searchMail('is:read is:unread'), []);
    });

    it('before: and after: take a day (UTC) or an instant', async () => {
      const first = new Date(firstAt);
      const day = (offsetDays: number) =>
        new Date(first.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
      // Mails are two days apart: the day after the first starts after it and before the second.
      assert.deepEqual(await searchMail(`before:${day(1)}`), ['Invoice 1001']);
      assert.deepEqual(await searchMail(`after:${day(1)} before:${day(5)}`), [
        'Quarterly report',
        'Weekly digest',
      ]);
      assert.deepEqual(await searchMail(`after:${firstAt} -after:${day(1)}`), ['Invoice 1001']);
    });

    it('search combines with q and the other filters (AND)', async () => {
      const page = await assertJson<MessagePage>(
        await ws.api(`/sandboxes/${mailBox.id}/messages${qs({ search: 'from:globex', isRead: 'false' })}`),
      );
      assert.deepEqual(
        page.items.map((m) => m.subject),
        ['Quarterly report'],
      );
    });

    it('a blank search filters nothing', async () => {
      assert.equal((await searchMail('   ')).length, 4);
    });
  });

  describe('200 requests', () => {
    it('finds a request by a header value', async () => {
      assert.deepEqual(await searchRequests('violetmoon'), ['/signup']);
    });

    it('finds a request by its body text, a JSON value and a form value', async () => {
      assert.deepEqual(await searchRequests('"gift wrap"'), ['/orders']);
      assert.deepEqual(await searchRequests('teapot-42'), ['/orders']);
      assert.deepEqual(await searchRequests('x@y.test'), ['/signup']);
    });

    it('by a word of its query string, decoded', async () => {
      assert.deepEqual(await searchRequests('lighthouse'), ['/health']);
      assert.deepEqual(await searchRequests('"lighthouse check"'), ['/health']);
    });

    it('by path, with an exclusion and is:unread', async () => {
      assert.deepEqual(await searchRequests('health'), ['/health']);
      assert.deepEqual(await searchRequests('is:unread -health -orders'), ['/signup']);
    });
  });

  describe('400', () => {
    const cases: Array<[string, RegExp]> = [
      ['"unclosed phrase', /quote is not closed at character 1/],
      [
        'from:acme frm:x',
        /Unknown operator "frm:" at character 11.*from: to: subject: has:attachment is:unread is:read before: after:/,
      ],
      ['before:2026-02-30', /"2026-02-30" is not a date at character 8/],
      ['is:starred', /is:unread or is:read/],
      ['has:pdf', /has:attachment/],
      ['word -', /"-" with nothing after it at character 6/],
      ['from:', /needs a value/],
      ['###', /letters or digits/],
    ];
    for (const [search, message] of cases) {
      it(`${JSON.stringify(search)} is refused naming search`, async () => {
        const body = await assertValidation(
          await ws.api(`/sandboxes/${mailBox.id}/messages${qs({ search })}`),
          ['search'],
        );
        assert.match(body.errors?.[0]?.message ?? '', message);
      });
    }

    it('operators that only mail has are refused on requests, listing the ones requests know', async () => {
      const body = await assertValidation(
        await ws.api(`/sandboxes/${hookBox.id}/requests${qs({ search: 'from:acme' })}`),
        ['search'],
      );
      assert.match(
        body.errors?.[0]?.message ?? '',
        /does not apply to requests.*is:unread is:read before: after:/,
      );
    });

    it('fuzzed searches answer 200 or a 400 naming search, never a 500 or a leak', async () => {
      const piece = fc.oneof(
        fc.string({ maxLength: 10 }),
        fc.constantFrom(
          '"',
          '-',
          'from:',
          'to:',
          'subject:',
          'has:attachment',
          'is:',
          'before:',
          'after:',
          "'",
          '\\',
          '&',
          '!',
          '<->',
          ':*',
          '\u0000',
          '\ud800',
          '%',
        ),
        fc.constantFrom(
          '2026-01-01',
          '0001-01-01',
          '9999-12-31T23:59:59-14:00',
          '+275760-09-13',
          'acme',
          'é',
        ),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(piece, { maxLength: 12 }), fc.boolean(), async (parts, requests) => {
          const box = requests ? hookBox : mailBox;
          const res = await ws.api(
            `/sandboxes/${box.id}/${requests ? 'requests' : 'messages'}${qs({ search: parts.join(' ') })}`,
          );
          const text = await res.text();
          assert.ok(res.status === 200 || res.status === 400, `${res.status}: ${text}`);
          assert.doesNotMatch(text, LEAK);
          if (res.status === 400)
            assert.ok(
              (JSON.parse(text) as { errors?: Array<{ path: string }> }).errors?.some(
                (e) => e.path === 'search' || e.path === 'query',
              ),
              text,
            );
        }),
        { numRuns: 150 },
      );
    });

    it('a search over 500 characters is refused', async () => {
      await assertValidation(
        await ws.api(`/sandboxes/${mailBox.id}/messages${qs({ search: 'a'.repeat(501) })}`),
        ['search'],
      );
    });
  });
});
