// The request log never carries a secret sent in a URL (OAuth codes and state, tokens, keys), and still says
// which route was called with which other parameters.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { pino } from 'pino';
import { createCore } from '../../src/core/core.ts';
import { buildApi } from '../../src/rest/app.ts';
import { redactUrl } from '../../src/rest/requestLog.ts';
import { testConfig } from '../helpers/api.ts';
import { testClock } from '../helpers/clock.ts';
import { describeEachStore } from '../helpers/stores.ts';

it('redacts the values of secret parameters only', () => {
  assert.equal(redactUrl('/api/v1/sandboxes?limit=5'), '/api/v1/sandboxes?limit=5');
  assert.equal(
    redactUrl('/cb?code=stc_abc&state=xyz&iss=http%3A%2F%2Fh'),
    '/cb?code=[redacted]&state=[redacted]&iss=http%3A%2F%2Fh',
  );
  assert.equal(
    redactUrl('/mcp?ACCESS_TOKEN=sta_x&a%63cess_token=sta_y'),
    '/mcp?ACCESS_TOKEN=[redacted]&a%63cess_token=[redacted]',
  );
  assert.equal(redactUrl('/x?%zz=1&token'), '/x?%zz=1&token');
});

describeEachStore('request log', (getStore) => {
  it('logs /mcp, /oauth/authorize and /api/v1 requests without the secrets in their query', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const core = createCore({
      store: getStore(),
      config: testConfig({ HOST: '127.0.0.1' }),
      clock: testClock(),
    });
    const app = await buildApi({ core, logger: pino({ level: 'info' }, sink) });
    await app.ready();
    const secrets = ['sta_SECRETACCESS', 'stc_SECRETCODE', 'STATE-SECRET', 'stk_SECRETKEY'];
    await app.inject({
      method: 'GET',
      url: `/oauth/authorize?client_id=stcl_x&state=${secrets[2]}&code=${secrets[1]}`,
    });
    await app.inject({ method: 'POST', url: `/mcp?access_token=${secrets[0]}`, payload: {} });
    await app.inject({ method: 'GET', url: `/api/v1/sandboxes?api_key=${secrets[3]}&limit=5` });
    await app.close();
    const log = lines.join('');
    assert.match(log, /"url":"\/oauth\/authorize\?client_id=stcl_x&state=\[redacted\]&code=\[redacted\]"/);
    assert.match(log, /"url":"\/api\/v1\/sandboxes\?api_key=\[redacted\]&limit=5"/);
    for (const secret of secrets) assert.ok(!log.includes(secret), `${secret} reached the log`);
  });
});
