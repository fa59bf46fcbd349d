// One span per captured HTTP exchange, a child of the trace the sender propagated (its `traceparent`), ended when
// the reply is written. A no-op unless an OpenTelemetry SDK is registered (README, "Traces").
import type { IncomingMessage, ServerResponse } from 'node:http';
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('sandtrap');

export function traceCapture(req: IncomingMessage, res: ServerResponse): void {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer.startSpan(
    'capture request',
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': req.method ?? 'GET',
        'url.path': (req.url ?? '/').split('?', 1)[0] as string,
        'network.protocol.version': req.httpVersion,
        ...(req.socket.remoteAddress === undefined ? {} : { 'client.address': req.socket.remoteAddress }),
        ...(req.socket.localPort === undefined ? {} : { 'server.port': req.socket.localPort }),
      },
    },
    parent,
  );
  // Without an SDK the span records nothing: no listeners on the hot path.
  if (!span.isRecording()) return;
  const end = () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    span.setAttribute('http.request.body.size', Number(req.headers['content-length'] ?? 0));
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (!res.writableFinished) span.setAttribute('error.type', 'aborted');
    span.end();
  };
  res.once('close', end);
}
