// One span per MCP tool call, in the semantic conventions' MCP shape. Its parent is the W3C context the client put
// in the request's `params._meta` (`traceparent`, as the MCP semantic conventions propagate it), else the
// surrounding one (the API request). A no-op unless an OpenTelemetry SDK is registered (README, "Traces").
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('sandtrap');

/** Runs `call` inside the tool call's span, ended with the result; `isError` results are marked. */
export function traceToolCall<R extends object>(
  toolName: string,
  meta: Record<string, unknown> | undefined,
  call: () => Promise<R>,
): Promise<R> {
  const parent = meta === undefined ? context.active() : propagation.extract(context.active(), meta);
  return tracer.startActiveSpan(
    `tools/call ${toolName}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': toolName,
      },
    },
    parent,
    async (span) => {
      try {
        const result = await call();
        const isError = 'isError' in result && result.isError === true;
        span.setAttribute('sandtrap.mcp.is_error', isError);
        if (isError) span.setAttribute('error.type', 'tool_error');
        return result;
      } finally {
        span.end();
      }
    },
  );
}
