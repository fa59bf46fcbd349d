// The server's sweep logs the anonymous OAuth clients it keeps and prunes (how many, registered in the last day,
// the bytes of metadata they hold), on both stores, through the real schedule and a real core.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { it } from 'node:test';
import { pino } from 'pino';
import { startSweeps } from '../../src/cli/sweeps.ts';
import { createCore } from '../../src/core/core.ts';
import { testConfig } from '../helpers/api.ts';
import { testClock } from '../helpers/clock.ts';
import { describeEachStore } from '../helpers/stores.ts';

const REDIRECT = 'http://127.0.0.1:4567/callback';

describeEachStore('OAuth client sweep log', (getStore) => {
  it('logs the clients kept and pruned with their metadata bytes at each sweep that changes them', async () => {
    const clock = testClock();
    const core = createCore({ store: getStore(), config: testConfig(), clock });
    for (const name of ['first', 'second']) {
      const reg = await core.oauth.register(
        { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: name },
        { address: '127.0.0.1' },
      );
      assert.ok(reg.ok);
    }
    const lines: Array<Record<string, any>> = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, any>);
          done();
        },
      }),
    );
    /** One sweep tick (the first runs at start), and the OAuth line it logged. */
    const sweepOnce = async () => {
      const seen = lines.length;
      const sweeps = startSweeps(core, logger, { intervalSeconds: 3600, grownCheckMs: 3_600_000 });
      let line: Record<string, any> | undefined;
      for (let waited = 0; line === undefined && waited < 10_000; waited += 20) {
        await sleep(20);
        line = lines.slice(seen).find((l) => l.msg === 'OAuth clients swept');
      }
      await sweeps.stop();
      assert.ok(line, JSON.stringify(lines.slice(seen)));
      return line.oauthClients as Record<string, number>;
    };
    const bytes = (name: string) => name.length + REDIRECT.length + 4;
    assert.deepEqual(await sweepOnce(), {
      prunedNeverAuthorized: 0,
      prunedUnused: 0,
      clients: 2,
      registeredLastDay: 2,
      metadataBytes: bytes('first') + bytes('second'),
    });
    clock.advance(2 * 86_400_000);
    assert.deepEqual(await sweepOnce(), {
      prunedNeverAuthorized: 2,
      prunedUnused: 0,
      clients: 0,
      registeredLastDay: 0,
      metadataBytes: 0,
    });
  });
});
