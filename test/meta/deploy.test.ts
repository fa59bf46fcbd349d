// The deployment files agree with the code: the Dockerfile's ports, variables, user and HEALTHCHECK, and
// compose.yaml's two sandtrap replicas, which must be one service (same store, same Redis, same key) and whose
// environment the real config loader accepts. The image itself is built and run by .ci/container-test.sh.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { generateApiKey } from '../../src/core/apiKeyFormat.ts';
import { loadConfig } from '../../src/core/config.ts';
import { REPO_ROOT } from '../helpers/process.ts';

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function instructions(): { op: string; args: string }[] {
  const text = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
    .map((line) => {
      const [op = '', ...rest] = line.trim().split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

/** The instructions of the last stage: what the image runs with. */
function runtimeStage() {
  const all = instructions();
  const lastFrom = all.map((i) => i.op).lastIndexOf('FROM');
  return all.slice(lastFrom);
}

function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of runtimeStage().filter((i) => i.op === 'ENV')) {
    for (const pair of args.split(/\s+/)) {
      const [name = '', value = ''] = pair.split('=');
      env[name] = value;
    }
  }
  return env;
}

describe('Dockerfile', () => {
  it('builds every stage on node:24-bookworm-slim', () => {
    const froms = instructions().filter((i) => i.op === 'FROM');
    assert.equal(froms.length, 3);
    for (const from of froms) assert.match(from.args, /^node:24-bookworm-slim( AS \w+)?$/);
  });

  it('exposes exactly the five listeners it configures, with the config defaults as ports', () => {
    const env = imageEnv();
    const config = loadConfig(env);
    const defaults = loadConfig({});
    const ports = [config.apiPort, config.smtpPort, config.smtpInboundPort, config.capturePort];
    assert.deepEqual(ports, [
      defaults.apiPort,
      defaults.smtpPort,
      defaults.smtpInboundPort,
      defaults.capturePort,
    ]);
    const exposed = runtimeStage()
      .filter((i) => i.op === 'EXPOSE')
      .flatMap((i) => i.args.split(/\s+/).map(Number));
    // The probe listener has no default (unset means probes share the API port); the image sets
    // one so a burst of API connections cannot starve its HEALTHCHECK.
    assert.equal(defaults.probePort, undefined);
    assert.equal(config.probePort, 8027);
    assert.deepEqual(exposed, [...ports, config.probePort]);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.dataDir, '/data');
  });

  it('runs as a non-root user with /data as a volume and a node HEALTHCHECK', () => {
    const stage = runtimeStage();
    const user = stage.filter((i) => i.op === 'USER').at(-1);
    assert.ok(user !== undefined && !['root', '0'].includes(user.args), 'a USER other than root');
    assert.ok(stage.some((i) => i.op === 'VOLUME' && i.args === '/data'));
    const healthcheck = stage.find((i) => i.op === 'HEALTHCHECK');
    assert.match(healthcheck?.args ?? '', /CMD \["node", "\/app\/bin\/healthcheck\.js"\]$/);
    assert.ok(existsSync(join(REPO_ROOT, 'bin', 'healthcheck.js')));
    const entrypoint = stage.find((i) => i.op === 'ENTRYPOINT');
    assert.match(entrypoint?.args ?? '', /"\/app\/bin\/sandtrap\.js"\]$/);
  });
});

interface ComposeService {
  build?: string;
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
}

describe('compose.yaml', () => {
  const compose = parse(readFileSync(join(REPO_ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const replicas = Object.entries(compose.services).filter(([, s]) => s.build === '.');

  it('runs two sandtrap replicas from the Dockerfile on the same environment', () => {
    assert.deepEqual(
      replicas.map(([name]) => name),
      ['sandtrap-1', 'sandtrap-2'],
    );
    const [[, first], [, second]] = replicas as [[string, ComposeService], [string, ComposeService]];
    assert.deepEqual(first.environment, second.environment);
    for (const [, replica] of replicas) {
      assert.deepEqual(replica.depends_on, {
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
      });
    }
  });

  it('points the replicas at the compose PostgreSQL and Redis, and the config loader accepts them', () => {
    const [[, replica]] = replicas as [[string, ComposeService]];
    const env: Record<string, string> = { ...replica.environment, BOOTSTRAP_API_KEY: generateApiKey() };
    const postgres = compose.services.postgres?.environment ?? {};
    const url = new URL(env.DATABASE_URL ?? '');
    assert.equal(url.hostname, 'postgres');
    assert.equal(url.username, postgres.POSTGRES_USER);
    assert.equal(url.password, postgres.POSTGRES_PASSWORD);
    assert.equal(url.pathname, `/${postgres.POSTGRES_DB}`);
    assert.equal(new URL(env.REDIS_URL ?? '').hostname, 'redis');
    assert.ok(compose.services.redis !== undefined);
    const config = loadConfig({ ...imageEnv(), ...env });
    assert.equal(config.redisUrl, env.REDIS_URL);
    assert.equal(config.databaseUrl, env.DATABASE_URL);
  });

  it('publishes each replica on host ports of its own, onto the image ports', () => {
    const published = replicas.flatMap(([, s]) => (s.ports ?? []).map((p) => p.split(':')));
    const hostPorts = published.map(([host]) => host);
    assert.equal(new Set(hostPorts).size, hostPorts.length, 'no host port twice');
    const containerPorts = new Set(published.map(([, container]) => Number(container)));
    const config = loadConfig(imageEnv());
    assert.deepEqual(
      containerPorts,
      new Set([config.apiPort, config.smtpPort, config.smtpInboundPort, config.capturePort]),
    );
  });
});
