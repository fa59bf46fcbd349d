// Config: defaults from design section 3, derived values, and clear errors for bad variables.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { ConfigError, loadConfig } from '../../src/core/config.ts';

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.apiPort, 8025);
    assert.equal(c.smtpPort, 2587);
    assert.equal(c.smtpInboundPort, 2525);
    assert.equal(c.capturePort, 8026);
    assert.equal(c.publicSmtpHost, '127.0.0.1');
    assert.equal(c.publicSmtpPort, 2587);
    assert.equal(c.captureDomain, 'capture.localhost');
    assert.equal(c.capturePublicUrl, 'http://127.0.0.1:8026/{id}');
    assert.equal(c.dataDir, './data');
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.bootstrapApiKey, undefined);
    assert.equal(c.rateLimits, true);
    assert.equal(c.retentionDays, 30);
    assert.equal(c.logLevel, 'info');
    assert.ok(Object.isFrozen(c));
  });

  it('derives public SMTP settings and the capture URL', () => {
    const c = loadConfig({ HOST: '0.0.0.0', SMTP_PORT: '587', CAPTURE_PORT: '9000' });
    assert.equal(c.publicSmtpHost, '127.0.0.1');
    assert.equal(c.publicSmtpPort, 587);
    assert.equal(c.capturePublicUrl, 'http://127.0.0.1:9000/{id}');
    const d = loadConfig({ CAPTURE_DOMAIN: 'Hooks.Example.com', PUBLIC_SMTP_HOST: 'mail.example.com' });
    assert.equal(d.captureDomain, 'hooks.example.com');
    assert.equal(d.capturePublicUrl, 'https://{id}.Hooks.Example.com');
    assert.equal(d.publicSmtpHost, 'mail.example.com');
    const e = loadConfig({ CAPTURE_PUBLIC_URL: 'https://cap.example.com/s/{id}' });
    assert.equal(e.capturePublicUrl, 'https://cap.example.com/s/{id}');
  });

  it('accepts a valid BOOTSTRAP_API_KEY and DATABASE_URL, RATE_LIMITS=off', () => {
    const key = generateApiKey();
    const c = loadConfig({
      BOOTSTRAP_API_KEY: key,
      DATABASE_URL: 'postgres://u@h/db',
      RATE_LIMITS: 'off',
      SMTP_INBOUND_PORT: '0',
    });
    assert.equal(c.bootstrapApiKey, key);
    assert.equal(c.databaseUrl, 'postgres://u@h/db');
    assert.equal(c.rateLimits, false);
    assert.equal(c.smtpInboundPort, 0);
  });

  const bad: Array<[Record<string, string>, string]> = [
    [{ API_PORT: 'http' }, 'API_PORT'],
    [{ SMTP_PORT: '70000' }, 'SMTP_PORT'],
    [{ BOOTSTRAP_API_KEY: 'stk_short' }, 'BOOTSTRAP_API_KEY'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ RATE_LIMITS: 'maybe' }, 'RATE_LIMITS'],
    [{ RETENTION_DAYS: '0' }, 'RETENTION_DAYS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ CAPTURE_PUBLIC_URL: 'https://x.example.com' }, 'CAPTURE_PUBLIC_URL'],
    [{ CAPTURE_DOMAIN: 'bad domain' }, 'CAPTURE_DOMAIN'],
    [{ SMTP_TLS_CERT: '/tmp/cert.pem' }, 'SMTP_TLS_KEY'],
  ];
  for (const [env, variable] of bad) {
    it(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.message.includes(variable),
      );
    });
  }
});
