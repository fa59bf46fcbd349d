// deploy/kubernetes: every object of the base and the PostgreSQL overlay, as kustomize renders them, validates
// against the Kubernetes schemas (kubernetes-models), and the parts sandtrap relies on are where they must be.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { loadConfig } from '../../src/core/config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const root = fileURLToPath(new URL('../../deploy/kubernetes/', import.meta.url));
const models = {
  Deployment,
  PodDisruptionBudget,
  ConfigMap,
  PersistentVolumeClaim,
  Secret,
  Service,
} as const;
type K8sObject = { kind: keyof typeof models; metadata: { name: string }; [key: string]: any };

function kubectlPresent(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const hasKubectl = kubectlPresent();
const noKubectl = hasKubectl
  ? false
  : 'kubectl (with its built-in kustomize) is not installed on this machine';

function parse(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

function render(dir: string): K8sObject[] {
  return parse(execFileSync('kubectl', ['kustomize', `${root}${dir}`], { encoding: 'utf8' }));
}

/** The base's files as written, without kustomize: each is a whole object. */
function baseFiles(): K8sObject[] {
  return readdirSync(`${root}base`)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((f) => parse(readFileSync(`${root}base/${f}`, 'utf8')));
}

function validate(objects: K8sObject[]) {
  for (const o of objects) {
    const Model = models[o.kind];
    assert.ok(Model, `${o.kind} ${o.metadata?.name}: a kind this test does not know; add its model`);
    assert.doesNotThrow(() => new Model(o as never).validate(), `${o.kind} ${o.metadata.name} is invalid`);
  }
}

const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const deploymentOf = (objects: K8sObject[]) => byKind(objects, 'Deployment')[0]!;

describe('deploy/kubernetes: schema validation', () => {
  it('each file of the base validates as written', () => {
    const objects = baseFiles();
    assert.deepEqual([...new Set(objects.map((o) => o.kind))].sort(), [
      'ConfigMap',
      'Deployment',
      'PersistentVolumeClaim',
      'PodDisruptionBudget',
      'Secret',
      'Service',
    ]);
    validate(objects);
  });

  it('the validator refuses a broken manifest (so the checks above can fail)', () => {
    const broken = structuredClone(deploymentOf(baseFiles()));
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'api';
    assert.throws(() => new Deployment(broken as never).validate(), /containerPort must be integer/);
  });

  it('the base renders with kustomize and every object validates', { skip: noKubectl }, () => {
    const objects = render('base');
    validate(objects);
    assert.equal(objects.length, 9);
  });

  it('the PostgreSQL overlay renders with kustomize and every object validates', { skip: noKubectl }, () => {
    const objects = render('overlays/postgres');
    validate(objects);
    assert.equal(byKind(objects, 'PersistentVolumeClaim').length, 0, 'no volume claim on PostgreSQL');
  });
});

describe('deploy/kubernetes: what sandtrap relies on', () => {
  const base = () => (hasKubectl ? render('base') : baseFiles());

  it('one Service per listener, each aimed at a named container port', () => {
    const objects = base();
    const ports = deploymentOf(objects).spec.template.spec.containers[0].ports as Array<{ name: string }>;
    const services = byKind(objects, 'Service');
    assert.deepEqual(services.map((s) => s.spec.ports[0].targetPort).sort(), [
      'api',
      'capture',
      'smtp',
      'smtp-inbound',
    ]);
    for (const s of services)
      assert.ok(
        ports.some((p) => p.name === s.spec.ports[0].targetPort),
        s.metadata.name,
      );
  });

  it('the container ports are the ports the ConfigMap configures', () => {
    const objects = base();
    const env = byKind(objects, 'ConfigMap')[0]!.data as Record<string, string>;
    const ports = deploymentOf(objects).spec.template.spec.containers[0].ports as Array<{
      name: string;
      containerPort: number;
    }>;
    const port = (name: string) => String(ports.find((p) => p.name === name)?.containerPort);
    assert.equal(port('api'), env.API_PORT);
    assert.equal(port('smtp'), env.SMTP_PORT);
    assert.equal(port('smtp-inbound'), env.SMTP_INBOUND_PORT);
    assert.equal(port('capture'), env.CAPTURE_PORT);
    assert.equal(port('probe'), env.PROBE_PORT);
  });

  it('every ConfigMap and Secret variable is one sandtrap reads, and the set loads', () => {
    const objects = hasKubectl ? render('overlays/postgres') : baseFiles();
    const env = {
      ...(byKind(objects, 'ConfigMap')[0]!.data as Record<string, string>),
      ...(byKind(objects, 'Secret')[0]!.stringData as Record<string, string>),
    };
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const name of Object.keys(env))
      assert.match(readme, new RegExp(`\\| \`${name}\``), `${name} is not a documented variable`);
    const config = loadConfig({
      ...env,
      BOOTSTRAP_API_KEY: execFileSync(process.execPath, ['bin/sandtrap.js', 'keys', 'generate'], {
        encoding: 'utf8',
      }).trim(),
    });
    assert.equal(config.smtpCatchAll, false, 'a pod binds 0.0.0.0: no anonymous catch-all unless asked');
  });

  it('the pod runs as non-root on a read-only root file system, with /data and /tmp writable', () => {
    const spec = deploymentOf(base()).spec.template.spec;
    const container = spec.containers[0];
    assert.equal(spec.securityContext.runAsNonRoot, true);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(container.securityContext.capabilities.drop, ['ALL']);
    assert.deepEqual(container.volumeMounts.map((m: { mountPath: string }) => m.mountPath).sort(), [
      '/data',
      '/tmp',
    ]);
    assert.ok(container.resources.requests.cpu && container.resources.requests.memory);
  });

  it(
    'the embedded base runs one pod at a time; the overlay rolls replicas with one always available',
    { skip: noKubectl },
    () => {
      const single = deploymentOf(render('base')).spec;
      assert.equal(single.replicas, 1);
      assert.equal(single.strategy.type, 'Recreate', 'the lock file admits one process per volume');
      const objects = render('overlays/postgres');
      const replicated = deploymentOf(objects).spec;
      assert.equal(replicated.replicas, 2);
      assert.equal(replicated.strategy.type, 'RollingUpdate');
      assert.equal(byKind(objects, 'PodDisruptionBudget')[0]!.spec.minAvailable, 1);
      assert.ok(byKind(objects, 'Secret')[0]!.stringData.DATABASE_URL.startsWith('postgres://'));
    },
  );
});

describeEachStore('deploy/kubernetes: the probes answer on a started server', (getStore) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore(), { PROBE_PORT: '0' });
  });
  after(() => server.close());

  it('readiness, liveness and startup probe paths return 200 on the probe listener (PROBE_PORT)', async () => {
    const container = deploymentOf(baseFiles()).spec.template.spec.containers[0];
    for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
      const { path, port } = container[probe].httpGet;
      assert.equal(port, 'probe', `${probe} targets the probe listener`);
      const res = await fetch(`http://127.0.0.1:${server.ports.probe}${path}`);
      assert.equal(res.status, 200, `${probe} ${path}`);
    }
  });
});
