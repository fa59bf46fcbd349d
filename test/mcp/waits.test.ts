// The MCP wait tools' rules, through both doors at once: the MCP SDK client over Streamable HTTP and the
// `sandtrap mcp` stdio process pointed at the same running server. A wait hands each item out once (the
// resend-code flow without `after` gets the new code), `peek` leaves it unread, `unread_only: false` brings
// read items back, two claiming waits never share an item, a timeout lists what did not match with the
// failing arguments and a corrected call (identical over HTTP and stdio), progress flows on both doors, and
// an unreachable server reads UNAVAILABLE with the URL and the socket error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { cleanupProcesses, freePort } from '../helpers/process.ts';
import { startTestServer, type TestServer, type TestServerWorkspace } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { endWaitsAfterArrival, NEVER_SECONDS } from '../helpers/waitEnd.ts';
import { callTool, capture, connectHttp, fails, ok, sendMail, waitUntil, WITH_PROGRESS } from './client.ts';
import { startStdio } from './stdioClient.ts';

const T = { timeout: 40_000 };

describeEachStore('MCP waits over HTTP and stdio', (getStore) => {
  let server: TestServer;
  let ws: TestServerWorkspace;
  let http: Client;
  let stdio: Client;
  const doors = (): Array<[string, Client]> => [
    ['http', http],
    ['stdio', stdio],
  ];

  before(async () => {
    server = await startTestServer(getStore());
    ws = await server.workspace();
    http = await connectHttp(server.apiUrl, ws.key);
    stdio = (await startStdio([], { SANDTRAP_URL: server.apiUrl, SANDTRAP_API_KEY: ws.key })).client;
  });
  after(async () => {
    await http?.close().catch(() => undefined);
    await stdio?.close().catch(() => undefined);
    await cleanupProcesses();
    server.api.server.closeAllConnections();
    await server.close();
  });

  async function newSandbox(client: Client) {
    return ok(client, 'create_sandbox', { name: 'waits' });
  }

  /** Mail in over SMTP; the clock then moves on so arrivals are strictly ordered. */
  async function mail(sb: Record<string, any>, subject: string, text: string, from?: string) {
    await sendMail(server.ports.smtp, sb, { subject, text, ...(from === undefined ? {} : { from }) });
    server.clock.advance(5);
  }

  async function opened(n: number) {
    await waitUntil(() => server.core.waits.active() >= n, `${n} open waits`);
  }

  for (const door of ['http', 'stdio'] as const) {
    it(
      `[${door}] resend-code flow: a second wait without after gets the new code, never the old`,
      T,
      async () => {
        const client = door === 'http' ? http : stdio;
        const sb = await newSandbox(client);
        const filters = { sandbox_id: sb.sandbox_id, subject_contains: 'code' };
        const pending = ok(client, 'wait_for_email', { ...filters, timeout_seconds: NEVER_SECONDS });
        await opened(1);
        await mail(sb, 'Your code', 'Your sign-in code is 111111');
        const first = await pending;
        assert.equal(first.status, 'received');
        assert.equal(first.email.otp.code, '111111');

        // The app resends before the agent asks again.
        await mail(sb, 'Your code', 'Your sign-in code is 222222');
        const second = await ok(client, 'wait_for_email', { ...filters, timeout_seconds: 5 });
        assert.equal(second.status, 'received');
        assert.equal(second.email.otp.code, '222222');

        // Both handed out: a third wait has nothing new, and says nothing was turned away.
        const third = await ok(client, 'wait_for_email', { ...filters, timeout_seconds: 0 });
        assert.equal(third.status, 'timeout');
        assert.deepEqual(third.non_matching, []);
        assert.equal(third.non_matching_arrivals, 0);

        // unread_only: false is the old rule: the newest match, read or not.
        const again = await ok(client, 'wait_for_email', {
          ...filters,
          timeout_seconds: 0,
          unread_only: false,
        });
        assert.equal(again.email.otp.code, '222222');
        assert.equal(again.email.is_read, true);

        // A resend that arrives while the agent waits is returned too.
        const waiting = ok(client, 'wait_for_email', { ...filters, timeout_seconds: NEVER_SECONDS });
        await opened(1);
        await mail(sb, 'Your code', 'Your sign-in code is 333333');
        assert.equal((await waiting).email.otp.code, '333333');
      },
    );

    it(`[${door}] peek returns the item and leaves it unread; the next wait then claims it`, T, async () => {
      const client = door === 'http' ? http : stdio;
      const sb = await newSandbox(client);
      await mail(sb, 'Login code', 'Code: 424242');
      const args = { sandbox_id: sb.sandbox_id, timeout_seconds: 0 };
      const peeked = await ok(client, 'wait_for_email', { ...args, peek: true });
      assert.equal(peeked.email.otp.code, '424242');
      assert.equal(peeked.email.is_read, false);
      const listed = await ok(client, 'list_emails', { sandbox_id: sb.sandbox_id });
      assert.equal(listed.emails[0].is_read, false, 'still unread after a peek');
      const claimed = await ok(client, 'wait_for_email', args);
      assert.equal(claimed.email.id, peeked.email.id);
      assert.equal(claimed.email.is_read, true);
      assert.equal((await ok(client, 'wait_for_email', args)).status, 'timeout');

      // Requests follow the same rule.
      const a = await capture(sb.capture_url, '/hook', { method: 'POST', body: '{"n":1}' });
      server.clock.advance(5);
      const b = await capture(sb.capture_url, '/hook', { method: 'POST', body: '{"n":2}' });
      server.clock.advance(5);
      const reqArgs = { sandbox_id: sb.sandbox_id, timeout_seconds: 0, method: 'post' };
      assert.equal(
        (await ok(client, 'wait_for_request', { ...reqArgs, peek: true })).request.id,
        b.requestId,
      );
      assert.equal((await ok(client, 'wait_for_request', reqArgs)).request.id, b.requestId);
      // a is unread but older than b, which a wait handed out: never the answer unless asked for.
      const stale = await ok(client, 'wait_for_request', reqArgs);
      assert.equal(stale.status, 'timeout');
      assert.deepEqual(
        stale.non_matching.map((m: any) => [m.id, m.failed_filters]),
        [[a.requestId, ['include_older']]],
      );
      assert.match(stale.hint, /with include_older: true only if you want it/);
      const asked = await ok(client, 'wait_for_request', { ...reqArgs, include_older: true });
      assert.equal(asked.request.id, a.requestId);
      assert.equal((await ok(client, 'wait_for_request', reqArgs)).status, 'timeout');
      const old = await ok(client, 'wait_for_request', { ...reqArgs, unread_only: false });
      assert.equal(old.request.id, b.requestId);
    });
  }

  it(
    'a timeout lists what did not match and the corrected call, identically over HTTP and stdio',
    T,
    async () => {
      const sb = await newSandbox(http);
      await mail(sb, 'Weekly newsletter', 'News, no code', 'News <news@beta.test>');
      const args = { sandbox_id: sb.sandbox_id, subject_contains: 'verify', timeout_seconds: NEVER_SECONDS };
      const waits = doors().map(([, client]) => ok(client, 'wait_for_email', args, WITH_PROGRESS));
      await opened(2);
      // Both end as by their timeout once they have seen the arrival, however long the send took.
      await endWaitsAfterArrival(server, ws, sb.sandbox_id, 'messages', () =>
        mail(sb, 'Your code', 'Your code is 515151', 'Acme <noreply@acme.test>'),
      );
      const [overHttp, overStdio] = await Promise.all(waits);
      assert.deepEqual(overStdio, overHttp, 'stdio reports exactly what HTTP reports');
      const result = overHttp as Record<string, any>;
      assert.equal(result.status, 'timeout');
      assert.equal(result.non_matching_arrivals, 1);
      assert.deepEqual(
        result.non_matching.map((m: any) => [m.subject, m.from, m.failed_filters]),
        [
          ['Your code', 'Acme <noreply@acme.test>', ['subject_contains']],
          ['Weekly newsletter', 'News <news@beta.test>', ['subject_contains']],
        ],
      );
      for (const m of result.non_matching) {
        assert.deepEqual(Object.keys(m).sort(), ['failed_filters', 'from', 'id', 'received_at', 'subject']);
      }
      assert.equal(
        result.hint,
        'An email "Your code" from Acme <noreply@acme.test> did not match subject_contains "verify": ' +
          'call wait_for_email again with subject_contains "code" or without it.',
      );

      // The corrected call works, and on success the report still names the one passed over.
      const fixed = await ok(http, 'wait_for_email', {
        ...args,
        subject_contains: 'code',
        timeout_seconds: 0,
      });
      assert.equal(fixed.email.otp.code, '515151');
      assert.deepEqual(
        fixed.non_matching.map((m: any) => [m.subject, m.failed_filters]),
        [['Weekly newsletter', ['subject_contains']]],
      );

      // An older item turned away by `after` is named as after, and the hint does not push it back on the agent.
      const older = await ok(stdio, 'wait_for_email', {
        sandbox_id: sb.sandbox_id,
        subject_contains: 'newsletter',
        after: fixed.email.id,
        timeout_seconds: 0,
      });
      assert.deepEqual(
        older.non_matching.map((m: any) => [m.subject, m.failed_filters]),
        [['Weekly newsletter', ['after']]],
      );
      assert.equal(
        older.hint,
        `An email "Weekly newsletter" from News <news@beta.test> did not match after "${fixed.email.id}": call ` +
          'wait_for_email again without after only if you want items from before it (this one is likely one ' +
          'you already handled).',
      );

      // Several failing filters, each named by its argument, with one fix each.
      const multi = await Promise.all(
        doors().map(([, client]) =>
          ok(client, 'wait_for_email', {
            sandbox_id: sb.sandbox_id,
            from_contains: 'acme',
            to: 'someone-else@example.test',
            timeout_seconds: 0,
          }),
        ),
      );
      assert.deepEqual(multi[1], multi[0]);
      assert.deepEqual(
        (multi[0] as any).non_matching.map((m: any) => m.failed_filters),
        // Older than the code a wait returned above, so also turned away by the rule include_older lifts.
        [['from_contains', 'to', 'include_older']],
      );
      assert.match((multi[0] as any).hint, /from_contains "news@beta.test" or without it, and without to/);
    },
  );

  it('request waits name method, path_contains and after, identically over HTTP and stdio', T, async () => {
    const sb = await newSandbox(http);
    const handled = await capture(sb.capture_url, '/hooks/old', { method: 'POST', body: 'x' });
    server.clock.advance(5);
    const args = {
      sandbox_id: sb.sandbox_id,
      method: 'POST',
      path_contains: '/hooks/',
      after: handled.requestId,
      timeout_seconds: NEVER_SECONDS,
    };
    const waits = doors().map(([, client]) => ok(client, 'wait_for_request', args, WITH_PROGRESS));
    await opened(2);
    await capture(sb.capture_url, '/hooks/signup'); // GET: wrong method
    server.clock.advance(5);
    await endWaitsAfterArrival(
      server,
      ws,
      sb.sandbox_id,
      'requests',
      () => capture(sb.capture_url, '/other', { method: 'POST', body: 'y' }), // wrong path
    );
    const [overHttp, overStdio] = await Promise.all(waits);
    assert.deepEqual(overStdio, overHttp);
    const result = overHttp as Record<string, any>;
    assert.equal(result.status, 'timeout');
    assert.equal(result.non_matching_arrivals, 2);
    assert.deepEqual(
      result.non_matching.map((m: any) => [m.method, m.path, m.failed_filters]),
      [
        ['POST', '/other', ['path_contains']],
        ['GET', '/hooks/signup', ['method']],
        ['POST', '/hooks/old', ['after']],
      ],
    );
    assert.equal(
      result.hint,
      'A request POST /other did not match path_contains "/hooks/": call wait_for_request again with ' +
        'path_contains "/other" or without it.',
    );
  });

  it('list_requests shows is_read and, with unread_only, only what no wait returned yet', T, async () => {
    const sb = await newSandbox(http);
    const older = await capture(sb.capture_url, '/hooks/a', { method: 'POST', body: 'a' });
    server.clock.advance(5);
    const newer = await capture(sb.capture_url, '/hooks/b', { method: 'POST', body: 'b' });
    server.clock.advance(5);
    for (const [, client] of doors()) {
      const listed = await ok(client, 'list_requests', { sandbox_id: sb.sandbox_id });
      assert.deepEqual(
        listed.requests.map((r: any) => [r.id, r.is_read]),
        [
          [newer.requestId, false],
          [older.requestId, false],
        ],
      );
    }
    const claimed = await ok(http, 'wait_for_request', { sandbox_id: sb.sandbox_id, timeout_seconds: 0 });
    assert.equal(claimed.request.id, newer.requestId);
    for (const [, client] of doors()) {
      const all = await ok(client, 'list_requests', { sandbox_id: sb.sandbox_id });
      assert.deepEqual(
        all.requests.map((r: any) => r.is_read),
        [true, false],
      );
      const unread = await ok(client, 'list_requests', { sandbox_id: sb.sandbox_id, unread_only: true });
      assert.deepEqual(
        unread.requests.map((r: any) => r.id),
        [older.requestId],
      );
    }
  });

  it(
    'two claiming waits on one arrival over both doors: one gets it, the other is told why not',
    T,
    async () => {
      const sb = await newSandbox(http);
      const args = { sandbox_id: sb.sandbox_id, timeout_seconds: NEVER_SECONDS };
      const waits = doors().map(([, client]) => ok(client, 'wait_for_email', args, WITH_PROGRESS));
      await opened(2);
      // The loser ends as by its timeout once it has seen the arrival go to the other wait.
      await endWaitsAfterArrival(server, ws, sb.sandbox_id, 'messages', () =>
        mail(sb, 'Your code', 'Code 909090'),
      );
      const results = (await Promise.all(waits)) as Array<Record<string, any>>;
      const got = results.filter((r) => r.status === 'received');
      const lost = results.filter((r) => r.status === 'timeout');
      assert.equal(got.length, 1, 'exactly one wait got the email');
      assert.equal(lost.length, 1);
      assert.equal(got[0]?.email.otp.code, '909090');
      assert.deepEqual(
        lost[0]?.non_matching.map((m: any) => [m.id, m.failed_filters]),
        [[got[0]?.email.id, ['unread_only']]],
      );
      assert.match(lost[0]?.hint, /unread_only: false \(an earlier wait already returned it\)/);
    },
  );

  it('progress notifications flow during a wait over HTTP and over stdio', T, async () => {
    const sb = await newSandbox(http);
    const seen: Record<string, Progress[]> = { http: [], stdio: [] };
    await Promise.all(
      doors().map(async ([name, client]) => {
        const out = await callTool(
          client,
          'wait_for_request',
          { sandbox_id: sb.sandbox_id, timeout_seconds: 6 },
          { onprogress: (p) => seen[name]?.push(p), timeout: 20_000 },
        );
        assert.equal(out.data.status, 'timeout');
      }),
    );
    for (const [name, progress] of Object.entries(seen)) {
      assert.ok(progress.length >= 1, `${name}: progress arrived, got ${JSON.stringify(progress)}`);
      for (const p of progress) {
        assert.equal(p.total, 6);
        assert.ok(p.progress > 0 && p.progress <= 6);
        assert.match(p.message ?? '', /Waiting for a request: \d+ s of 6 s/);
      }
    }
  });

  it('refuses a non-boolean unread_only or peek naming the argument', T, async () => {
    const sb = await newSandbox(http);
    for (const [, client] of doors()) {
      const text = await fails(client, 'wait_for_email', { sandbox_id: sb.sandbox_id, unread_only: 'yes' });
      assert.match(text, /^INVALID_INPUT: /);
      assert.match(text, /unread_only/);
      const peek = await fails(client, 'wait_for_request', { sandbox_id: sb.sandbox_id, peek: 1 });
      assert.match(peek, /peek/);
    }
  });
});

describe('sandtrap mcp with no server behind SANDTRAP_URL', () => {
  after(async () => {
    await cleanupProcesses();
  });

  it('answers UNAVAILABLE naming the URL, the socket error and the two ways out', T, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const { client } = await startStdio([], { SANDTRAP_URL: url, SANDTRAP_API_KEY: 'stk_unused' });
    try {
      const expected =
        `UNAVAILABLE: sandtrap at ${url} did not answer (ECONNREFUSED). ` +
        'Start it with npm start, or run sandtrap mcp --embedded.';
      assert.equal(await fails(client, 'list_sandboxes', {}), expected);
      // A 300 s wait answered inside the test's timeout: refused at once, not after the wait's timeout.
      assert.equal(
        await fails(client, 'wait_for_email', {
          sandbox_id: '00000000-0000-4000-8000-000000000000',
          timeout_seconds: NEVER_SECONDS,
        }),
        expected,
      );
    } finally {
      await client.close().catch(() => undefined);
    }
    await sleep(0);
  });
});
