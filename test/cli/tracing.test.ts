// Traces are off by default: which OTEL_* variables turn them on (config.ts), and a server started without them
// starts no SDK, so every span in the process is the OpenTelemetry API's no-op.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { trace } from '@opentelemetry/api';
import { pino } from 'pino';
import { startTracing } from '../../src/cli/tracing.ts';
import { loadConfig } from '../../src/core/config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { describeEachStore } from '../helpers/stores.ts';

const traces = (env: Record<string, string>) => loadConfig(env).traces;

it('traces are on only when the OTEL_* variables ask for them', () => {
  assert.equal(traces({}), false);
  assert.equal(traces({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
  assert.equal(traces({ OTEL_TRACES_EXPORTER: 'console' }), true);
  assert.equal(traces({ OTEL_TRACES_EXPORTER: 'none' }), false);
  assert.equal(traces({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), false);
  assert.equal(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
  assert.equal(traces({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true);
  assert.equal(traces({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }), false);
  assert.equal(traces({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), false);
  assert.equal(traces({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), true);
  assert.equal(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }), false);
});

describeEachStore('tracing off by default', (getStore) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(getStore());
  });
  after(async () => {
    await server.close();
  });

  it('starts no SDK: spans in the process record nothing', async () => {
    assert.equal(await startTracing(server.core.config, pino({ level: 'silent' })), undefined);
    const ws = await server.workspace();
    const sb = await ws.createSandbox();
    const res = await fetch(`http://127.0.0.1:${server.ports.capture}/${sb.id}/x`, {
      method: 'POST',
      body: 'a',
    });
    assert.equal(res.status, 200);
    const span = trace.getTracer('probe').startSpan('probe');
    assert.equal(span.isRecording(), false, 'the global tracer provider is the no-op one');
    assert.equal(trace.getActiveSpan(), undefined);
    span.end();
    const item = (await (await ws.api(`/sandboxes/${sb.id}/requests`)).json()) as { items: any[] };
    assert.equal(item.items[0]?.traceparent, null, 'no traceparent sent, none stored');
  });
});
