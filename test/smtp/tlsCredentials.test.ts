// The self-signed STARTTLS pair: generated once, written into DATA_DIR only by save(), then reused as is.
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadTlsCredentials } from '../../src/smtp/tlsCredentials.ts';

describe('STARTTLS credentials', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandtrap-tls-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const options = { certFile: undefined, keyFile: undefined, dataDir, hostname: 'mail.sandtrap.test' };

  it('a generated pair is written only by save(), and the next start reads that same pair', async () => {
    const generated = await loadTlsCredentials(options);
    const cert = new X509Certificate(generated.cert);
    assert.match(cert.subjectAltName ?? '', /mail\.sandtrap\.test/);
    assert.ok(cert.checkPrivateKey(createPrivateKey(generated.key)));
    assert.ok(!existsSync(join(dataDir, 'tls')), 'nothing is written before save()');

    await generated.save();
    const again = await loadTlsCredentials(options);
    assert.equal(again.cert, generated.cert);
    assert.equal(again.key, generated.key);
    await again.save(); // a pair read from files is not written again
    assert.equal((await loadTlsCredentials(options)).cert, generated.cert);
  });
});
