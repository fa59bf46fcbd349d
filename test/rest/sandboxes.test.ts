// REST /api/v1/sandboxes: create (plain and ephemeral), list with search and pagination, read, update,
// secret rotation, delete; validation problems, cross-workspace isolation and authentication.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { components } from '../../openapi/schema.d.ts';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { createTestApi, type TestApi, type TestWorkspace } from '../helpers/api.ts';
import { assertProblem, assertValidation, type Problem } from '../helpers/injectProblems.ts';
import { ISO_RE, UUID_RE } from '../helpers/shapes.ts';
import { describeEachStore } from '../helpers/stores.ts';

type Sandbox = components['schemas']['Sandbox'];
type SandboxPage = components['schemas']['SandboxPage'];

const BASE = '/api/v1/sandboxes';
const MINUTE = 60_000;

function assertNotFound(res: LightMyRequestResponse): Problem {
  const body = assertProblem(res, 404, 'not-found');
  assert.equal(body.title, 'Not found');
  return body;
}

function assertUnauthorized(res: LightMyRequestResponse): void {
  assertProblem(res, 401, 'unauthorized');
  assert.match(String(res.headers['www-authenticate']), /^Bearer/);
}

async function create(ws: TestWorkspace, payload: object = { name: 'sandbox' }): Promise<Sandbox> {
  const res = await ws.call({ method: 'POST', url: BASE, payload });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<Sandbox>();
}

function getRes(ws: TestWorkspace, id: string): Promise<LightMyRequestResponse> {
  return ws.call({ method: 'GET', url: `${BASE}/${id}` });
}

async function get(ws: TestWorkspace, id: string): Promise<Sandbox> {
  const res = await getRes(ws, id);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Sandbox>();
}

function listRes(ws: TestWorkspace, query: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const qs = new URLSearchParams(query).toString();
  return ws.call({ method: 'GET', url: qs === '' ? BASE : `${BASE}?${qs}` });
}

async function list(ws: TestWorkspace, query: Record<string, string> = {}): Promise<SandboxPage> {
  const res = await listRes(ws, query);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<SandboxPage>();
}

/** Every sandbox id of the workspace, walking all pages. */
async function allIds(ws: TestWorkspace, query: Record<string, string> = {}): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const page: SandboxPage = await list(ws, {
      limit: '200',
      ...query,
      ...(cursor === null ? {} : { cursor }),
    });
    ids.push(...page.items.map((s) => s.id));
    cursor = page.nextCursor;
    if (cursor === null) return ids;
  }
  throw new Error('pagination did not end');
}

describeEachStore('REST sandboxes', (getStore) => {
  let api: TestApi;

  before(async () => {
    api = await createTestApi(getStore());
  });
  after(async () => {
    await api.close();
  });

  /** Creates sandboxes one by one, moving the clock so each is strictly newer than the one before. */
  async function createSeries(ws: TestWorkspace, names: string[]): Promise<Sandbox[]> {
    const out: Sandbox[] = [];
    for (const name of names) {
      out.push(await create(ws, { name }));
      api.clock.advance(5);
    }
    return out;
  }

  describe('200/201/204', () => {
    describe('POST /sandboxes', () => {
      it('returns 201 with every field of the Sandbox shape', async () => {
        const ws = await api.workspace();
        const before = api.clock.now().getTime();
        const res = await ws.call({
          method: 'POST',
          url: BASE,
          payload: { name: 'checkout tests', tags: { team: 'payments', env: 'ci' } },
        });
        const after = api.clock.now().getTime();
        assert.equal(res.statusCode, 201, res.body);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.ok(String(res.headers['x-request-id']).length > 0);
        const s = res.json<Sandbox>();

        assert.match(s.id, UUID_RE);
        assert.equal(s.name, 'checkout tests');
        assert.deepEqual(s.tags, { team: 'payments', env: 'ci' });
        assert.equal(typeof s.smtpHost, 'string');
        assert.ok(s.smtpHost.length > 0);
        assert.equal(s.smtpHost, api.config.publicSmtpHost);
        assert.ok(Number.isInteger(s.smtpPort) && s.smtpPort > 0 && s.smtpPort < 65536);
        assert.equal(s.smtpPort, api.config.publicSmtpPort);
        assert.equal(s.smtpUsername, s.id);
        assert.match(s.smtpPassword, /^[A-Za-z0-9]{24,}$/);
        assert.ok(s.captureUrl.includes(s.id), `captureUrl ${s.captureUrl} contains the id`);
        assert.equal(s.captureUrl, api.config.capturePublicUrl.replaceAll('{id}', s.id));
        assert.deepEqual(s.mocks, []);
        assert.match(s.createdAt, ISO_RE);
        const created = Date.parse(s.createdAt);
        assert.ok(created >= before && created <= after, 'createdAt is the time of the request');
        assert.equal(s.isEphemeral, false);
        assert.equal(s.expiresAt, null);
        assert.equal(s.emailDomain, `${s.id}.capture.localhost`);
        assert.equal(s.emailAddress, `inbox@${s.emailDomain}`);
      });

      it('defaults tags to {} when omitted or null', async () => {
        const ws = await api.workspace();
        assert.deepEqual((await create(ws, { name: 'a' })).tags, {});
        assert.deepEqual((await create(ws, { name: 'b', tags: null })).tags, {});
      });

      it('accepts a name of exactly 64 characters', async () => {
        const ws = await api.workspace();
        const name = 'n'.repeat(64);
        const s = await create(ws, { name });
        assert.equal(s.name, name);
        assert.equal((await get(ws, s.id)).name, name);
      });

      it('returns the password on every read: GET and list equal the create response', async () => {
        const ws = await api.workspace();
        const created = await create(ws, { name: 'reads', tags: { k: 'v' } });
        const read = await get(ws, created.id);
        assert.deepEqual(read, created);
        assert.equal(read.smtpPassword, created.smtpPassword);
        const page = await list(ws);
        assert.equal(page.items.length, 1);
        assert.deepEqual(page.items[0], created);
      });

      it('gives two sandboxes different ids and passwords', async () => {
        const ws = await api.workspace();
        const a = await create(ws, { name: 'same' });
        const b = await create(ws, { name: 'same' });
        assert.notEqual(a.id, b.id);
        assert.notEqual(a.smtpPassword, b.smtpPassword);
        assert.equal(a.name, b.name, 'names are not unique');
      });

      it('finds a sandbox by an upper-case id in the path', async () => {
        const ws = await api.workspace();
        const s = await create(ws);
        assert.equal((await get(ws, s.id.toUpperCase())).id, s.id);
      });
    });

    describe('ephemeral sandboxes', () => {
      it('ephemeral: true expires 60 minutes after creation by default', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'eph', ephemeral: true });
        assert.equal(s.isEphemeral, true);
        assert.ok(s.expiresAt !== null && s.expiresAt !== undefined);
        assert.match(s.expiresAt, ISO_RE);
        assert.equal(Date.parse(s.expiresAt) - Date.parse(s.createdAt), 60 * MINUTE);
        assert.deepEqual(await get(ws, s.id), s);
      });

      it('ttlMinutes null with ephemeral: true uses the default 60', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'eph', ephemeral: true, ttlMinutes: null });
        assert.equal(Date.parse(s.expiresAt as string) - Date.parse(s.createdAt), 60 * MINUTE);
      });

      for (const ttl of [1, 1440]) {
        it(`accepts ttlMinutes ${ttl} exactly`, async () => {
          const ws = await api.workspace();
          const s = await create(ws, { name: 'eph', ephemeral: true, ttlMinutes: ttl });
          assert.equal(s.isEphemeral, true);
          assert.equal(Date.parse(s.expiresAt as string) - Date.parse(s.createdAt), ttl * MINUTE);
        });
      }

      it('accepts ttlMinutes as a decimal-digit string ("30" = 30 minutes)', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'eph', ephemeral: true, ttlMinutes: '30' });
        assert.equal(Date.parse(s.expiresAt as string) - Date.parse(s.createdAt), 30 * MINUTE);
      });

      it('ephemeral: false gives a permanent sandbox', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'perm', ephemeral: false });
        assert.equal(s.isEphemeral, false);
        assert.equal(s.expiresAt, null);
      });

      it('an expired ephemeral sandbox is 404 everywhere and missing from the list', async () => {
        const ws = await api.workspace();
        const eph = await create(ws, { name: 'short-lived', ephemeral: true, ttlMinutes: 1 });
        const perm = await create(ws, { name: 'permanent' });

        api.clock.advance(50_000);
        assert.equal((await get(ws, eph.id)).id, eph.id, 'still alive before its TTL');
        assert.deepEqual((await allIds(ws)).sort(), [eph.id, perm.id].sort());

        api.clock.advance(11_000);
        assertNotFound(await getRes(ws, eph.id));
        assert.deepEqual(await allIds(ws), [perm.id]);
        assert.deepEqual((await list(ws, { q: eph.id })).items, []);
        assertNotFound(await ws.call({ method: 'PUT', url: `${BASE}/${eph.id}`, payload: { name: 'x' } }));
        assertNotFound(
          await ws.call({ method: 'PUT', url: `${BASE}/${eph.id}/mocks`, payload: { mocks: [] } }),
        );
        assertNotFound(await ws.call({ method: 'POST', url: `${BASE}/${eph.id}/secret/reset` }));
        assertNotFound(await ws.call({ method: 'DELETE', url: `${BASE}/${eph.id}` }));
        assert.equal((await get(ws, perm.id)).name, 'permanent');
      });
    });

    describe('GET /sandboxes', () => {
      it('lists newest first with a null nextCursor when everything fits', async () => {
        const ws = await api.workspace();
        const made = await createSeries(ws, ['first', 'second', 'third']);
        const page = await list(ws);
        assert.deepEqual(
          page.items.map((s) => s.name),
          ['third', 'second', 'first'],
        );
        assert.deepEqual(page.items[0], made[2]);
        assert.equal(page.nextCursor, null);
      });

      it('an empty workspace lists nothing', async () => {
        const ws = await api.workspace();
        assert.deepEqual(await list(ws), { items: [], nextCursor: null });
      });

      it('walks 5 sandboxes with limit=2 page by page, without duplicates or gaps', async () => {
        const ws = await api.workspace();
        const made = await createSeries(ws, ['s1', 's2', 's3', 's4', 's5']);
        const expected = made.map((s) => s.id).reverse();
        const pages: string[][] = [];
        let cursor: string | null = null;
        do {
          const page: SandboxPage = await list(ws, { limit: '2', ...(cursor === null ? {} : { cursor }) });
          pages.push(page.items.map((s) => s.id));
          cursor = page.nextCursor;
          if (cursor !== null) assert.equal(typeof cursor, 'string');
        } while (cursor !== null && pages.length < 10);
        assert.deepEqual(
          pages.map((p) => p.length),
          [2, 2, 1],
        );
        assert.deepEqual(pages.flat(), expected);
      });

      it('pages correctly through sandboxes created in the same millisecond', async () => {
        const ws = await api.workspace();
        const ids = new Set<string>();
        // No clock movement: several rows may share created_at, so the id tiebreak must hold.
        for (let i = 0; i < 7; i++) ids.add((await create(ws, { name: `tie-${i}` })).id);
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let n = 0; n < 10; n++) {
          const page: SandboxPage = await list(ws, { limit: '3', ...(cursor === null ? {} : { cursor }) });
          seen.push(...page.items.map((s) => s.id));
          cursor = page.nextCursor;
          if (cursor === null) break;
        }
        assert.equal(cursor, null);
        assert.equal(seen.length, 7);
        assert.deepEqual(new Set(seen), ids);
      });

      it('defaults to 50 items per page (51 sandboxes: 50 and a cursor, then 1)', async () => {
        const ws = await api.workspace();
        for (let i = 0; i < 51; i++) await create(ws, { name: `bulk-${i}` });
        const first = await list(ws);
        assert.equal(first.items.length, 50);
        assert.equal(typeof first.nextCursor, 'string');
        const second = await list(ws, { cursor: first.nextCursor as string });
        assert.equal(second.items.length, 1);
        assert.equal(second.nextCursor, null);
        const all = [...first.items, ...second.items].map((s) => s.id);
        assert.equal(new Set(all).size, 51);
      });

      it('clamps limit=500 to 200 instead of refusing it', async () => {
        const ws = await api.workspace();
        const workspaceId = ws.orgId;
        for (let i = 0; i < 201; i++) await api.core.sandboxes.create(workspaceId, { name: `many-${i}` });
        const first = await list(ws, { limit: '500' });
        assert.equal(first.items.length, 200);
        assert.equal(typeof first.nextCursor, 'string');
        const second = await list(ws, { limit: '500', cursor: first.nextCursor as string });
        assert.equal(second.items.length, 1);
        assert.equal(second.nextCursor, null);
        assert.equal(new Set([...first.items, ...second.items].map((s) => s.id)).size, 201);
      });

      it('accepts limit=200 and limit=1', async () => {
        const ws = await api.workspace();
        await createSeries(ws, ['a', 'b']);
        assert.equal((await list(ws, { limit: '200' })).items.length, 2);
        const one = await list(ws, { limit: '1' });
        assert.deepEqual(
          one.items.map((s) => s.name),
          ['b'],
        );
        assert.notEqual(one.nextCursor, null);
      });

      describe('q', () => {
        let ws: TestWorkspace;
        let byName: Record<string, Sandbox>;

        before(async () => {
          ws = await api.workspace();
          byName = {};
          for (const payload of [
            { name: 'Alpha Checkout', tags: { team: 'payments' } },
            { name: 'beta signup', tags: { Region: 'EU-West' } },
            { name: 'gamma 50% off', tags: {} },
            { name: 'delta_under', tags: {} },
            { name: 'deltaXunder', tags: {} },
            { name: 'plain', tags: {} },
          ]) {
            byName[payload.name] = await create(ws, payload);
            api.clock.advance(5);
          }
        });

        async function names(q: string): Promise<string[]> {
          return (await list(ws, { q })).items.map((s) => s.name).sort();
        }

        it('matches a substring of the name, case-insensitively', async () => {
          assert.deepEqual(await names('CHECK'), ['Alpha Checkout']);
          assert.deepEqual(await names('alpha'), ['Alpha Checkout']);
          assert.deepEqual(await names('Signup'), ['beta signup']);
        });

        it('matches a substring of the id', async () => {
          const target = byName['plain'] as Sandbox;
          const part = target.id.slice(9, 23);
          assert.deepEqual(await names(part), ['plain']);
          assert.deepEqual(await names(target.id.toUpperCase()), ['plain']);
        });

        it('matches a substring of a tag key', async () => {
          assert.deepEqual(await names('regio'), ['beta signup']);
          assert.deepEqual(await names('TEAM'), ['Alpha Checkout']);
        });

        it('matches a substring of a tag value', async () => {
          assert.deepEqual(await names('paym'), ['Alpha Checkout']);
          assert.deepEqual(await names('eu-west'), ['beta signup']);
        });

        it('treats % and _ literally', async () => {
          assert.deepEqual(await names('50%'), ['gamma 50% off']);
          assert.deepEqual(await names('%'), ['gamma 50% off']);
          assert.deepEqual(await names('_'), ['delta_under']);
          assert.deepEqual(await names('a_u'), ['delta_under']);
        });

        it('a q that matches nothing gives an empty page', async () => {
          assert.deepEqual(await list(ws, { q: 'no-such-thing' }), { items: [], nextCursor: null });
        });

        it('paginates filtered results with the filter kept', async () => {
          const first = await list(ws, { q: 'delta', limit: '1' });
          assert.equal(first.items.length, 1);
          assert.equal(typeof first.nextCursor, 'string');
          const second = await list(ws, { q: 'delta', limit: '1', cursor: first.nextCursor as string });
          assert.equal(second.items.length, 1);
          assert.equal(second.nextCursor, null);
          assert.deepEqual([first.items[0]?.name, second.items[0]?.name].sort(), [
            'deltaXunder',
            'delta_under',
          ]);
        });
      });
    });

    describe('PUT /sandboxes/{id}', () => {
      it('changes name and tags; the change is returned and read back', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'old', tags: { a: '1' } });
        const res = await ws.call({
          method: 'PUT',
          url: `${BASE}/${s.id}`,
          payload: { name: 'new name', tags: { b: '2', c: '3' } },
        });
        assert.equal(res.statusCode, 200, res.body);
        const updated = res.json<Sandbox>();
        assert.equal(updated.name, 'new name');
        assert.deepEqual(updated.tags, { b: '2', c: '3' });
        assert.deepEqual(updated, { ...s, name: 'new name', tags: { b: '2', c: '3' } });
        assert.deepEqual(await get(ws, s.id), updated);
      });

      it('name: null keeps the name and still applies the tags', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'keep me', tags: { a: '1' } });
        const res = await ws.call({
          method: 'PUT',
          url: `${BASE}/${s.id}`,
          payload: { name: null, tags: { z: '9' } },
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json<Sandbox>().name, 'keep me');
        assert.deepEqual(res.json<Sandbox>().tags, { z: '9' });
        const read = await get(ws, s.id);
        assert.equal(read.name, 'keep me');
        assert.deepEqual(read.tags, { z: '9' });
      });

      it('omitted or null tags keep the tags', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'tagged', tags: { keep: 'yes' } });
        const r1 = await ws.call({ method: 'PUT', url: `${BASE}/${s.id}`, payload: { name: 'renamed' } });
        assert.equal(r1.statusCode, 200, r1.body);
        assert.deepEqual(r1.json<Sandbox>().tags, { keep: 'yes' });
        const r2 = await ws.call({
          method: 'PUT',
          url: `${BASE}/${s.id}`,
          payload: { name: 'again', tags: null },
        });
        assert.equal(r2.statusCode, 200, r2.body);
        const read = await get(ws, s.id);
        assert.equal(read.name, 'again');
        assert.deepEqual(read.tags, { keep: 'yes' });
      });

      it('tags: {} clears the tags', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'tagged', tags: { a: '1' } });
        const res = await ws.call({
          method: 'PUT',
          url: `${BASE}/${s.id}`,
          payload: { name: null, tags: {} },
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual((await get(ws, s.id)).tags, {});
      });

      it('keeps the mocks, password and expiry', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'full', ephemeral: true, ttlMinutes: 10 });
        const mocksRes = await ws.call({
          method: 'PUT',
          url: `${BASE}/${s.id}/mocks`,
          payload: { mocks: [{ statusCode: 201, body: 'hi' }] },
        });
        assert.equal(mocksRes.statusCode, 200, mocksRes.body);
        const withMocks = mocksRes.json<Sandbox>();
        const res = await ws.call({ method: 'PUT', url: `${BASE}/${s.id}`, payload: { name: 'renamed' } });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json<Sandbox>(), { ...withMocks, name: 'renamed' });
      });
    });

    describe('POST /sandboxes/{id}/secret/reset', () => {
      it('returns a new password, which GET then returns', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'rotate', tags: { t: '1' } });
        const res = await ws.call({ method: 'POST', url: `${BASE}/${s.id}/secret/reset` });
        assert.equal(res.statusCode, 200, res.body);
        const rotated = res.json<Sandbox>();
        assert.match(rotated.smtpPassword, /^[A-Za-z0-9]{24,}$/);
        assert.notEqual(rotated.smtpPassword, s.smtpPassword);
        assert.deepEqual(rotated, { ...s, smtpPassword: rotated.smtpPassword });
        assert.equal((await get(ws, s.id)).smtpPassword, rotated.smtpPassword);

        const again = await ws.call({ method: 'POST', url: `${BASE}/${s.id}/secret/reset` });
        assert.equal(again.statusCode, 200, again.body);
        assert.notEqual(again.json<Sandbox>().smtpPassword, rotated.smtpPassword);
      });
    });

    describe('DELETE /sandboxes/{id}', () => {
      it('returns 204; the sandbox is then 404 and gone from the list; a second DELETE is 404', async () => {
        const ws = await api.workspace();
        const keep = await create(ws, { name: 'keep' });
        const gone = await create(ws, { name: 'gone' });
        const res = await ws.call({ method: 'DELETE', url: `${BASE}/${gone.id}` });
        assert.equal(res.statusCode, 204);
        assert.equal(res.body, '');
        assertNotFound(await getRes(ws, gone.id));
        assert.deepEqual(await allIds(ws), [keep.id]);
        assertNotFound(await ws.call({ method: 'DELETE', url: `${BASE}/${gone.id}` }));
        assert.equal((await get(ws, keep.id)).name, 'keep');
      });
    });
  });

  describe('400', () => {
    describe('POST /sandboxes', () => {
      async function rejectCreate(payload: unknown, paths: string[]): Promise<void> {
        const ws = await api.workspace();
        const res = await ws.call({ method: 'POST', url: BASE, payload: payload as object });
        assertValidation(res, paths);
        assert.deepEqual(await list(ws), { items: [], nextCursor: null }, 'nothing was created');
      }

      for (const ttl of [0, 1441, -5, 2.5, 'abc', '', '1e3']) {
        it(`ttlMinutes ${JSON.stringify(ttl)} is refused and nothing is created`, async () => {
          await rejectCreate({ name: 'eph', ephemeral: true, ttlMinutes: ttl }, ['ttlMinutes']);
        });
      }

      it('ttlMinutes without ephemeral is refused', async () => {
        await rejectCreate({ name: 'eph', ttlMinutes: 30 }, ['ttlMinutes']);
      });

      it('ttlMinutes with ephemeral: false is refused', async () => {
        await rejectCreate({ name: 'eph', ephemeral: false, ttlMinutes: 30 }, ['ttlMinutes']);
      });

      it('ephemeral must be a boolean', async () => {
        await rejectCreate({ name: 'eph', ephemeral: 'yes' }, ['ephemeral']);
      });

      it('name is required', async () => {
        await rejectCreate({ tags: { a: 'b' } }, ['name']);
      });

      it('name of 65 characters is refused', async () => {
        await rejectCreate({ name: 'n'.repeat(65) }, ['name']);
      });

      it('name must be a string', async () => {
        await rejectCreate({ name: 123 }, ['name']);
      });

      it('name cannot be empty', async () => {
        await rejectCreate({ name: '' }, ['name']);
      });

      it('name cannot be null on create', async () => {
        await rejectCreate({ name: null }, ['name']);
      });

      // PostgreSQL text and jsonb cannot hold U+0000: it must be refused as input, never reach the store.
      it('a name containing U+0000 is refused (path name), not a 500', async () => {
        await rejectCreate({ name: 'nul\u0000name' }, ['name']);
      });

      it('a tag value containing U+0000 is refused (path tags.k), not a 500', async () => {
        await rejectCreate({ name: 'ok', tags: { k: 'v\u0000' } }, ['tags.k']);
      });

      it('a tag value must be a string (path tags.x)', async () => {
        await rejectCreate({ name: 'tags', tags: { ok: 'fine', x: 1 } }, ['tags.x']);
      });

      it('tags must be an object', async () => {
        await rejectCreate({ name: 'tags', tags: 'team=a' }, ['tags']);
      });

      it('reports several invalid fields at once', async () => {
        await rejectCreate({ name: 'n'.repeat(65), tags: { x: true } }, ['name', 'tags.x']);
      });

      it('invalid JSON is a 400 problem and nothing is created', async () => {
        const ws = await api.workspace();
        const res = await ws.call({
          method: 'POST',
          url: BASE,
          headers: { 'content-type': 'application/json' },
          payload: '{"name": "broken",',
        });
        const body = assertProblem(res, 400, 'validation-error');
        assert.ok(Array.isArray(body.errors) && body.errors.length > 0);
        assert.deepEqual(await list(ws), { items: [], nextCursor: null });
      });

      it('a non-JSON content type is a 400 problem and nothing is created', async () => {
        const ws = await api.workspace();
        const res = await ws.call({
          method: 'POST',
          url: BASE,
          headers: { 'content-type': 'text/plain' },
          payload: '{"name":"plain text"}',
        });
        assertProblem(res, 400, 'validation-error');
        assert.deepEqual(await list(ws), { items: [], nextCursor: null });
      });

      it('a form-encoded body is a 400 problem and nothing is created', async () => {
        const ws = await api.workspace();
        const res = await ws.call({
          method: 'POST',
          url: BASE,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'name=form',
        });
        assertProblem(res, 400, 'validation-error');
        assert.deepEqual(await list(ws), { items: [], nextCursor: null });
      });

      it('a JSON body that is not an object is refused', async () => {
        const ws = await api.workspace();
        const res = await ws.call({
          method: 'POST',
          url: BASE,
          headers: { 'content-type': 'application/json' },
          payload: '["name"]',
        });
        assertProblem(res, 400, 'validation-error');
        assert.deepEqual(await list(ws), { items: [], nextCursor: null });
      });
    });

    describe('GET /sandboxes', () => {
      for (const limit of ['0', '-1', 'abc', '2.5']) {
        it(`limit=${limit} is refused (path limit)`, async () => {
          const ws = await api.workspace();
          await create(ws);
          assertValidation(await listRes(ws, { limit }), ['limit']);
        });
      }

      it('cursor=garbage is refused (path cursor)', async () => {
        const ws = await api.workspace();
        await create(ws);
        assertValidation(await listRes(ws, { cursor: 'garbage' }), ['cursor']);
      });

      it('a random base64url cursor is refused (path cursor)', async () => {
        const ws = await api.workspace();
        await create(ws);
        assertValidation(await listRes(ws, { cursor: randomBytes(30).toString('base64url') }), ['cursor']);
      });

      it('a cursor with characters outside base64url is refused (path cursor)', async () => {
        const ws = await api.workspace();
        assertValidation(await listRes(ws, { cursor: 'not a cursor!' }), ['cursor']);
      });
    });

    describe('PUT /sandboxes/{id}', () => {
      async function rejectUpdate(payload: unknown, paths: string[]): Promise<void> {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'original', tags: { a: '1' } });
        const res = await ws.call({ method: 'PUT', url: `${BASE}/${s.id}`, payload: payload as object });
        assertValidation(res, paths);
        assert.deepEqual(await get(ws, s.id), s, 'nothing changed');
      }

      it('{} (name missing) is refused naming name', async () => {
        await rejectUpdate({}, ['name']);
      });

      it('tags alone (name missing) is refused naming name', async () => {
        await rejectUpdate({ tags: { b: '2' } }, ['name']);
      });

      it('a name of 65 characters is refused', async () => {
        await rejectUpdate({ name: 'x'.repeat(65) }, ['name']);
      });

      it('an empty name is refused', async () => {
        await rejectUpdate({ name: '' }, ['name']);
      });

      it('a name containing U+0000 is refused (path name), not a 500', async () => {
        await rejectUpdate({ name: 'bad\u0000' }, ['name']);
      });

      it('a tag value that is not a string is refused (path tags.x)', async () => {
        await rejectUpdate({ name: 'ok', tags: { x: 5 } }, ['tags.x']);
      });

      it('invalid JSON is a 400 problem and nothing changes', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'original' });
        const res = await ws.call({
          method: 'PUT',
          url: `${BASE}/${s.id}`,
          headers: { 'content-type': 'application/json' },
          payload: '{name: "x"}',
        });
        assertProblem(res, 400, 'validation-error');
        assert.deepEqual(await get(ws, s.id), s);
      });

      it('a non-JSON content type is a 400 problem and nothing changes', async () => {
        const ws = await api.workspace();
        const s = await create(ws, { name: 'original' });
        const res = await ws.call({
          method: 'PUT',
          url: `${BASE}/${s.id}`,
          headers: { 'content-type': 'text/plain' },
          payload: 'name=x',
        });
        assertProblem(res, 400, 'validation-error');
        assert.deepEqual(await get(ws, s.id), s);
      });
    });

    describe('malformed id in the path', () => {
      const cases: { method: 'GET' | 'PUT' | 'POST' | 'DELETE'; suffix: string; payload?: object }[] = [
        { method: 'GET', suffix: '' },
        { method: 'PUT', suffix: '', payload: { name: 'x' } },
        { method: 'PUT', suffix: '/mocks', payload: { mocks: [] } },
        { method: 'POST', suffix: '/secret/reset' },
        { method: 'DELETE', suffix: '' },
      ];
      for (const c of cases) {
        it(`${c.method} /sandboxes/not-a-uuid${c.suffix} is refused naming id`, async () => {
          const ws = await api.workspace();
          const s = await create(ws);
          const res = await ws.call({
            method: c.method,
            url: `${BASE}/not-a-uuid${c.suffix}`,
            ...(c.payload === undefined ? {} : { payload: c.payload }),
          });
          assertValidation(res, ['id']);
          assert.deepEqual(await get(ws, s.id), s);
        });
      }
    });
  });

  describe('401', () => {
    const endpoints = (id: string) =>
      [
        { method: 'POST', url: BASE, payload: { name: 'intruder' } },
        { method: 'GET', url: BASE },
        { method: 'GET', url: `${BASE}/${id}` },
        { method: 'PUT', url: `${BASE}/${id}`, payload: { name: 'intruder' } },
        { method: 'PUT', url: `${BASE}/${id}/mocks`, payload: { mocks: [{ statusCode: 500 }] } },
        { method: 'POST', url: `${BASE}/${id}/secret/reset` },
        { method: 'DELETE', url: `${BASE}/${id}` },
      ] as const;

    it('every endpoint refuses a request without a key, and nothing changes', async () => {
      const ws = await api.workspace();
      const s = await create(ws, { name: 'guarded' });
      for (const e of endpoints(s.id)) {
        const res = await api.app.inject({
          method: e.method,
          url: e.url,
          ...('payload' in e ? { payload: e.payload } : {}),
        });
        assert.equal(res.statusCode, 401, `${e.method} ${e.url}: ${res.body}`);
        assertUnauthorized(res);
      }
      assert.deepEqual(await get(ws, s.id), s);
      assert.deepEqual(await allIds(ws), [s.id]);
    });

    it('every endpoint refuses a well-formed but unknown key, and nothing changes', async () => {
      const ws = await api.workspace();
      const s = await create(ws, { name: 'guarded' });
      const wrong = generateApiKey();
      for (const e of endpoints(s.id)) {
        const res = await api.app.inject({
          method: e.method,
          url: e.url,
          headers: { authorization: `Bearer ${wrong}` },
          ...('payload' in e ? { payload: e.payload } : {}),
        });
        assert.equal(res.statusCode, 401, `${e.method} ${e.url}: ${res.body}`);
        assertUnauthorized(res);
      }
      assert.deepEqual(await get(ws, s.id), s);
      assert.deepEqual(await allIds(ws), [s.id]);
    });

    it('accepts the key in X-Api-Key as well', async () => {
      const ws = await api.workspace();
      const s = await create(ws);
      const res = await api.app.inject({
        method: 'GET',
        url: `${BASE}/${s.id}`,
        headers: { 'x-api-key': ws.key },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<Sandbox>().id, s.id);
    });
  });

  describe('404', () => {
    it('an unknown uuid is a not-found problem on every endpoint', async () => {
      const ws = await api.workspace();
      const id = randomUUID();
      assertNotFound(await getRes(ws, id));
      assertNotFound(await ws.call({ method: 'PUT', url: `${BASE}/${id}`, payload: { name: 'x' } }));
      assertNotFound(await ws.call({ method: 'PUT', url: `${BASE}/${id}/mocks`, payload: { mocks: [] } }));
      assertNotFound(await ws.call({ method: 'POST', url: `${BASE}/${id}/secret/reset` }));
      assertNotFound(await ws.call({ method: 'DELETE', url: `${BASE}/${id}` }));
    });

    it("another workspace's sandbox is 404 on every endpoint, absent from its list, and unchanged", async () => {
      const a = await api.workspace();
      const b = await api.workspace();
      const s = await create(a, { name: 'private', tags: { owner: 'a' } });
      const bOwn = await create(b, { name: 'b own' });

      assertNotFound(await getRes(b, s.id));
      assertNotFound(await b.call({ method: 'PUT', url: `${BASE}/${s.id}`, payload: { name: 'hijacked' } }));
      assertNotFound(
        await b.call({
          method: 'PUT',
          url: `${BASE}/${s.id}/mocks`,
          payload: { mocks: [{ statusCode: 500 }] },
        }),
      );
      assertNotFound(await b.call({ method: 'POST', url: `${BASE}/${s.id}/secret/reset` }));
      assertNotFound(await b.call({ method: 'DELETE', url: `${BASE}/${s.id}` }));

      assert.deepEqual(await allIds(b), [bOwn.id]);
      assert.deepEqual((await list(b, { q: s.id })).items, []);
      assert.deepEqual((await list(b, { q: 'private' })).items, []);

      assert.deepEqual(await get(a, s.id), s, "A's sandbox is untouched");
      assert.deepEqual(await allIds(a), [s.id]);
    });

    it('an unknown path under /api/v1 is a not-found problem', async () => {
      const ws = await api.workspace();
      assertNotFound(await ws.call({ method: 'GET', url: `${BASE}/${randomUUID()}/nothing-here` }));
    });
  });
});
