// The published OpenAPI document: version fields, every endpoint of the spec, and the local interactive reference.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApi, type TestApi } from '../helpers/api.ts';
import { storeBackends } from '../helpers/stores.ts';
import type { Store } from '../../src/core/store/openStore.ts';

/** Spec section 4, verbatim paths relative to /api/v1. */
const SPEC_ENDPOINTS = [
  'GET /whoami',
  'GET /account',
  'POST /sandboxes',
  'GET /sandboxes',
  'GET /sandboxes/{id}',
  'PUT /sandboxes/{id}',
  'PUT /sandboxes/{id}/mocks',
  'POST /sandboxes/{id}/secret/reset',
  'DELETE /sandboxes/{id}',
  'GET /sandboxes/{sandboxId}/messages',
  'GET /sandboxes/{sandboxId}/messages/wait',
  'GET /sandboxes/{sandboxId}/messages/{messageId}',
  'PATCH /sandboxes/{sandboxId}/messages/{messageId}',
  'DELETE /sandboxes/{sandboxId}/messages/{messageId}',
  'DELETE /sandboxes/{sandboxId}/messages',
  'GET /sandboxes/{sandboxId}/messages/{messageId}/raw',
  'GET /sandboxes/{sandboxId}/messages/{messageId}/attachments/{index}',
  'GET /sandboxes/{sandboxId}/requests',
  'GET /sandboxes/{sandboxId}/requests/wait',
  'GET /sandboxes/{sandboxId}/requests/{requestId}',
  'GET /sandboxes/{sandboxId}/requests/{requestId}/raw',
  'DELETE /sandboxes/{sandboxId}/requests/{requestId}',
  'DELETE /sandboxes/{sandboxId}/requests',
  'POST /keys',
  'GET /keys',
  'DELETE /keys/{id}',
];

const normalise = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

describe('OpenAPI document', () => {
  let store: Store;
  let api: TestApi;
  let doc: {
    openapi: string;
    info: { version: string };
    paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>>;
  };
  before(async () => {
    store = await (storeBackends()[0] as { open(): Promise<Store> }).open();
    api = await createTestApi(store);
    const res = await api.app.inject({ url: '/openapi/v1.json' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = res.json();
  });
  after(async () => {
    await api.close();
    await store.close();
  });

  it('is OpenAPI 3.1.1 with API version 1.0.0 and a /api/v1 server', () => {
    assert.equal(doc.openapi, '3.1.1');
    assert.equal(doc.info.version, '1.0.0');
  });

  it('documents every endpoint of the spec, each with an operationId, 401 and 429', () => {
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        documented.add(`${method.toUpperCase()} ${normalise(path)}`);
        assert.ok(op.operationId, `${method} ${path} has an operationId`);
        assert.ok(op.responses['401'] && op.responses['429'], `${method} ${path} documents 401 and 429`);
      }
    }
    for (const endpoint of SPEC_ENDPOINTS) {
      const [method, path] = endpoint.split(' ') as [string, string];
      assert.ok(documented.has(`${method} ${normalise(path)}`), `${endpoint} is documented`);
    }
  });

  it('serves the interactive reference at /api-docs from local files', async () => {
    const res = await api.app.inject({ url: '/api-docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<html/i);
    assert.doesNotMatch(res.body, /https?:\/\/(cdn|unpkg|cdnjs)\./);
    const init = await api.app.inject({ url: '/api-docs/static/swagger-initializer.js' });
    assert.equal(init.statusCode, 200);
    assert.match(init.body, /openapi\/v1\.json/);
  });
});
