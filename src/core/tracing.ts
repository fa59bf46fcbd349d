// Core's spans (store commit, wait), through the OpenTelemetry API only: without an SDK registered (the default,
// src/cli/tracing.ts) every call is the API's no-op. Attribute names follow the semantic conventions where
// one exists; the rest are under `sandtrap.`.
import { trace, TraceFlags, type Link, type Tracer } from '@opentelemetry/api';

/** A proxy until an SDK registers a provider; then it delegates, so a module-level tracer is fine. */
export const tracer: Tracer = trace.getTracer('sandtrap');

/** The span link to a stored W3C traceparent (validated when stored: src/core/traceparent.ts). */
export function linkToTraceparent(traceparent: string): Link {
  const [, traceId = '', spanId = '', flags = '00'] = traceparent.split('-');
  return {
    context: { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED, isRemote: true },
    attributes: { 'sandtrap.link': 'returned_item' },
  };
}
