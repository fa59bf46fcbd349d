// OpenTelemetry for `sandtrap serve`: off unless OTEL_* variables ask for traces (config.ts, `tracesOn`); then the
// Node SDK starts before any listener, exporting over OTLP (or what OTEL_TRACES_EXPORTER names), configured by the
// SDK's own variables. Off, nothing here loads: core's and the adapters' spans stay the API's no-ops.
import type { Logger } from 'pino';
import type { Config } from '../core/config.ts';
import { VERSION } from './version.ts';

export interface Tracing {
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

export async function startTracing(config: Readonly<Config>, logger: Logger): Promise<Tracing | undefined> {
  if (!config.traces) return undefined;
  const [{ NodeSDK }, { defaultResource, resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/resources'),
  ]);
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES still win: the SDK merges them over this.
    resource: defaultResource().merge(
      resourceFromAttributes({ 'service.name': 'sandtrap', 'service.version': VERSION }),
    ),
    // Our spans are written by hand (core, smtp, capture, mcp) and @fastify/otel's plugin (rest/app.ts): no
    // module patching.
    instrumentations: [],
  });
  sdk.start();
  logger.info('OpenTelemetry traces are on (OTEL_* variables)');
  return { shutdown: () => sdk.shutdown() };
}
