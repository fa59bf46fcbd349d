// The inbound port the Mailpit way (issue 37): with SMTP_CATCH_ALL on, mail for any address outside the
// sandboxes' domains lands in the catch-all sandbox (a kept sandbox named `catch-all` in the first workspace,
// made at start, made again when deleted), with no login; the port offers no STARTTLS unless asked, so
// nodemailer given only host and port delivers. Sandbox-domain recipients keep going to their sandboxes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { loadConfig } from '../../src/core/config.ts';
import type { Store } from '../../src/core/store/openStore.ts';
import { refusal } from '../helpers/mail.ts';
import { freePort } from '../helpers/process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { smtplib } from '../helpers/smtplib.ts';
import { Wire } from '../helpers/smtpWire.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Json = Record<string, any>;

/** nodemailer as an app configured the Mailpit way: host and port, nothing else. */
const bare = (port: number) => nodemailer.createTransport({ host: '127.0.0.1', port });

async function startCatchAll(store: Store, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer(store, {
    SMTP_INBOUND_PORT: String(await freePort()),
    SMTP_CATCH_ALL: 'on',
    ...env,
  });
}

/** The first workspace's view: the catch-all belongs to it. */
async function firstWorkspaceApi(server: TestServer) {
  const first =
    (await server.core.workspaces.findBySubdomainOrId('default')) ?? (await server.core.workspaces.all())[0];
  assert.ok(first !== undefined);
  const key = await server.core.apiKeys.create(first.orgId, { label: 'catch-all test' });
  const api = (path: string, init?: RequestInit) =>
    fetch(`${server.apiUrl}/api/v1${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${key.key}`,
        ...(init?.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
    });
  return { api };
}

async function catchAllOf(api: (path: string) => Promise<Response>): Promise<Json[]> {
  const page = (await (await api('/sandboxes?limit=200')).json()) as { items: Json[] };
  return page.items.filter((s) => s.catchAll === true);
}

async function waitForMail(api: (path: string) => Promise<Response>, sandboxId: string, subject: string) {
  const res = await api(
    `/sandboxes/${sandboxId}/messages/wait?subjectContains=${encodeURIComponent(subject)}&timeoutSeconds=30`,
  );
  assert.equal(res.status, 200, `the mail "${subject}" reached sandbox ${sandboxId}`);
  return (await res.json()) as Json;
}

// One server per store: closing a server closes its store.
describeEachStore('SMTP catch-all (SMTP_CATCH_ALL=on)', (getStore) => {
  describe('on', () => {
    let server: TestServer;
    let port: number;
    let api: (path: string, init?: RequestInit) => Promise<Response>;
    before(async () => {
      server = await startCatchAll(getStore());
      port = server.ports.smtpInbound as number;
      ({ api } = await firstWorkspaceApi(server));
    });
    after(() => server.close());

    it('exists from the start: one kept sandbox named catch-all, marked, in the first workspace', async () => {
      const found = await catchAllOf(api);
      assert.equal(found.length, 1);
      assert.equal(found[0]?.name, 'catch-all');
      assert.equal(found[0]?.isEphemeral, false);
      assert.equal(server.catchAll?.sandboxId, found[0]?.id);
      const other = await server.workspace();
      const theirs = (await (await other.api('/sandboxes')).json()) as { items: Json[] };
      assert.equal(theirs.items.length, 0, 'another workspace does not see it');
    });

    it('nodemailer with only host and port delivers mail for any address; no STARTTLS is offered', async () => {
      const info = await bare(port).sendMail({
        from: 'app@example.com',
        to: 'alice@example.com',
        cc: 'bob@example.org',
        subject: 'Welcome alice',
        text: 'Your code is 482913',
      });
      assert.deepEqual(info.rejected, []);
      const [catchAll] = await catchAllOf(api);
      const m = await waitForMail(api, catchAll?.id as string, 'Welcome alice');
      assert.deepEqual([...m.capturedFor].sort(), ['alice@example.com', 'bob@example.org']);
      const wire = await Wire.open(port);
      try {
        const ehlo = await wire.command('EHLO app.test');
        assert.ok(!ehlo.lines.some((l) => l.slice(4) === 'STARTTLS'), ehlo.text);
        assert.notEqual((await wire.command('STARTTLS')).code, 220);
      } finally {
        wire.close();
      }
    });

    it('Python smtplib with no login delivers too', async () => {
      const result = await smtplib({
        port,
        mail_from: 'noreply@shop.test',
        rcpt_to: ['seeded.user@example.net'],
        subject: 'from smtplib',
        body: 'hello',
      });
      assert.deepEqual(result, { ok: true });
      const [catchAll] = await catchAllOf(api);
      await waitForMail(api, catchAll?.id as string, 'from smtplib');
    });

    it('a message to a sandbox address and an outside one is stored in each, with its own recipients', async () => {
      const ws = await server.workspace();
      const sandbox = await ws.createSandbox({ name: 'app' });
      await bare(port).sendMail({
        from: 'app@example.com',
        to: [sandbox.emailAddress, 'carol@example.com'],
        subject: 'to both kinds',
        text: 'x',
      });
      const inSandbox = await waitForMail(ws.api, sandbox.id, 'to both kinds');
      assert.deepEqual(inSandbox.capturedFor, [sandbox.emailAddress]);
      const [catchAll] = await catchAllOf(api);
      const inCatchAll = await waitForMail(api, catchAll?.id as string, 'to both kinds');
      assert.deepEqual(inCatchAll.capturedFor, ['carol@example.com']);
    });

    it('an address in a sandbox domain of no live sandbox is still refused (550 5.1.1)', async () => {
      const gone = `x@00000000-0000-4000-8000-000000000000.capture.localhost`;
      const err = await refusal(bare(port).sendMail({ from: 'a@b.test', to: gone, subject: 's', text: 'x' }));
      assert.equal(err.responseCode, 550);
      assert.match(err.response, /5\.1\.1/);
    });

    it('deleted, it is made again for the next mail, and the new one is the catch-all', async () => {
      const [before] = await catchAllOf(api);
      assert.equal((await api(`/sandboxes/${before?.id}`, { method: 'DELETE' })).status, 204);
      await bare(port).sendMail({
        from: 'a@b.test',
        to: 'dave@example.com',
        subject: 'after delete',
        text: 'x',
      });
      const found = await catchAllOf(api);
      assert.equal(found.length, 1);
      assert.notEqual(found[0]?.id, before?.id);
      await waitForMail(api, found[0]?.id as string, 'after delete');
    });
  });
});

describeEachStore('SMTP catch-all with SMTP_INBOUND_STARTTLS=on', (getStore) => {
  describe('SMTP_INBOUND_STARTTLS=on', () => {
    let server: TestServer;
    before(async () => {
      server = await startCatchAll(getStore(), { SMTP_INBOUND_STARTTLS: 'on' });
    });
    after(() => server.close());

    it('offers STARTTLS, and a client that upgrades is caught as well', async () => {
      const port = server.ports.smtpInbound as number;
      const wire = await Wire.open(port);
      try {
        const ehlo = await wire.command('EHLO app.test');
        assert.ok(
          ehlo.lines.some((l) => l.slice(4) === 'STARTTLS'),
          ehlo.text,
        );
      } finally {
        wire.close();
      }
      const tls = nodemailer.createTransport({ host: '127.0.0.1', port, tls: { rejectUnauthorized: false } });
      await tls.sendMail({ from: 'a@b.test', to: 'erin@example.com', subject: 'over tls', text: 'x' });
      const { api } = await firstWorkspaceApi(server);
      const [catchAll] = await catchAllOf(api);
      await waitForMail(api, catchAll?.id as string, 'over tls');
    });
  });
});

describeEachStore('SMTP catch-all named by SMTP_CATCH_ALL_SANDBOX', (getStore) => {
  describe('SMTP_CATCH_ALL_SANDBOX names another sandbox', () => {
    let server: TestServer;
    before(async () => {
      server = await startCatchAll(getStore(), { SMTP_CATCH_ALL_SANDBOX: 'dev inbox' });
    });
    after(() => server.close());

    it('the catch-all is the kept sandbox of that name', async () => {
      const { api } = await firstWorkspaceApi(server);
      const found = await catchAllOf(api);
      assert.equal(found.length, 1);
      assert.equal(found[0]?.name, 'dev inbox');
    });
  });
});

describeEachStore('SMTP catch-all off', (getStore) => {
  describe('off', () => {
    let server: TestServer;
    before(async () => {
      server = await startCatchAll(getStore(), { SMTP_CATCH_ALL: 'off' });
    });
    after(() => server.close());

    it('an outside address is refused with 550 5.1.1 and no catch-all exists', async () => {
      const err = await refusal(
        bare(server.ports.smtpInbound as number).sendMail({
          from: 'a@b.test',
          to: 'alice@example.com',
          subject: 's',
          text: 'x',
        }),
      );
      assert.equal(err.responseCode, 550);
      assert.match(err.response, /5\.1\.1 No sandbox receives mail for alice@example\.com/);
      const { api } = await firstWorkspaceApi(server);
      assert.deepEqual(await catchAllOf(api), []);
    });
  });
});

describe('SMTP_CATCH_ALL and SMTP_INBOUND_STARTTLS defaults', () => {
  it('auto: the catch-all is on when the listeners are bound to loopback, off otherwise', () => {
    assert.equal(loadConfig({ HOST: '127.0.0.1' }).smtpCatchAll, true);
    assert.equal(loadConfig({ HOST: '::1' }).smtpCatchAll, true);
    assert.equal(loadConfig({ HOST: '0.0.0.0' }).smtpCatchAll, false);
    assert.equal(loadConfig({ HOST: '0.0.0.0', SMTP_CATCH_ALL: 'on' }).smtpCatchAll, true);
    assert.equal(loadConfig({ HOST: '127.0.0.1', SMTP_CATCH_ALL: 'off' }).smtpCatchAll, false);
    assert.equal(loadConfig({}).smtpCatchAllSandbox, 'catch-all');
  });

  it('auto: the inbound port offers STARTTLS only with a configured certificate', () => {
    assert.equal(loadConfig({}).smtpInboundStartTls, false);
    assert.equal(loadConfig({ SMTP_TLS_CERT: 'c.pem', SMTP_TLS_KEY: 'k.pem' }).smtpInboundStartTls, true);
    assert.equal(loadConfig({ SMTP_INBOUND_STARTTLS: 'on' }).smtpInboundStartTls, true);
    assert.throws(() => loadConfig({ SMTP_CATCH_ALL: 'yes' }), /SMTP_CATCH_ALL/);
  });
});
