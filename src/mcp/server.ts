// Builds the MCP server from the tool table: registration, the server instructions, progress, cancellation,
// and the one place where errors become `isError` results that tell the agent what to do next. Only core's
// closed set of codes and the tools' own refusals reach the agent; anything else is a generic INTERNAL result
// carrying the request id, logged here with its detail.
import { randomUUID } from 'node:crypto';
import {
  McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
  type RegisteredTool,
} from '@modelcontextprotocol/server';
import { closestArg } from './closestArg.ts';
import { pino } from 'pino';
import { isAppError } from '../core/errors.ts';
import { RemoteInternalError, type McpBackend } from './backend.ts';
import { portableSchema } from './portableSchema.ts';
import { RefusedArgs, refusalAsValue } from './sdkToolInput.ts';
import { installTasks, type TaskStore } from './tasks/index.ts';
import { ToolError, type ToolContext, type ToolDefinition } from './toolkit.ts';
import { renamePath, renamePathsIn } from './tools/coreArgs.ts';
import { tools } from './tools/index.ts';
import { traceToolCall } from './toolSpan.ts';
import { emailRawUri, rawLinks, requestRawUri } from './views.ts';

export const SERVER_INSTRUCTIONS = `sandtrap captures email and HTTP requests from the app you are testing; nothing is delivered or forwarded.
Canonical flow:
1. create_sandbox -> returns email_address, smtp {host, port, username, password} (STARTTLS) and capture_url.
2. Point the app at them: sign up with email_address, or configure its SMTP settings; send webhooks/API calls to capture_url/<path>.
3. wait_for_email (or wait_for_request) with the sandbox_id. The email comes back with otp.code and primary_link already extracted.
4. Use the code or link. A wait never returns an item older than one a wait already returned in that sandbox, so calling it again gets the next one.
Timeouts are results (status "timeout"); status "still_waiting" means call again with continue_with.arguments. set_mock_rules controls what capture_url replies.`;

const NEXT_STEP: Record<string, string> = {
  not_found:
    'Check the id with list_sandboxes (or list_emails / list_requests), or create a sandbox with create_sandbox.',
  invalid_input: 'Fix the named arguments and call again.',
  rate_limited: 'Wait a few seconds and call again, or let an open wait finish first.',
  unauthorized: 'Check the API key the MCP client sends.',
  unavailable: 'Retry in a moment.',
  conflict: 'Reload the current state and retry.',
  payload_too_large: 'Send less data.',
};

/** Where unexpected failures are logged: a pino-like logger (fastify's request.log fits). */
export interface ErrorLog {
  error(obj: object, msg: string): void;
}

export interface McpServerOptions {
  /** Logs unexpected failures with their detail; default JSON lines on stderr (stdout is the stdio protocol). */
  log?: ErrorLog;
  /** Serve the MCP Tasks extension (2026-07-28 instances only): the process's tasks, and whose they are. */
  tasks?: { store: TaskStore; owner: string };
}

/** The waits, the calls that can outlive a client's timeout, may run as tasks. */
const TASK_TOOLS: ReadonlySet<string> = new Set(['wait_for_email', 'wait_for_request']);

let stderrLog: ErrorLog | undefined;
function defaultLog(): ErrorLog {
  stderrLog ??= pino({ level: 'error', base: { component: 'mcp' } }, pino.destination(2));
  return stderrLog;
}

/** X-Request-Id values the API listener keeps (design section 4.4); others are replaced. */
const WELL_FORMED_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The correlation id and logger of one tool call, as the transport provides them. */
interface CallScope {
  requestId(): string;
  log: ErrorLog;
}

type HandlerContext = {
  http?: { req?: Request; authInfo?: { extra?: Record<string, unknown> } };
};

/**
 * Over HTTP the route may hand over fastify's request id and logger (`authInfo.extra.requestId` / `.log`);
 * otherwise a well-formed incoming X-Request-Id is the request's id (the API listener keeps it), else a new one.
 */
function scopeOf(ctx: HandlerContext, options: McpServerOptions): CallScope {
  const extra = ctx.http?.authInfo?.extra;
  const given = extra?.requestId;
  const incoming = ctx.http?.req?.headers.get('x-request-id') ?? undefined;
  const routeLog = extra?.log as Partial<ErrorLog> | undefined;
  let id: string | undefined =
    typeof given === 'string'
      ? given
      : incoming !== undefined && WELL_FORMED_ID.test(incoming)
        ? incoming
        : undefined;
  return {
    requestId: () => (id ??= randomUUID()),
    log: typeof routeLog?.error === 'function' ? (routeLog as ErrorLog) : (options.log ?? defaultLog()),
  };
}

function result(text: string) {
  return { isError: true, content: [{ type: 'text' as const, text }] };
}

/** `<CODE>: <what went wrong>. <what to do next>` for a failure nobody planned for; its detail is only logged. */
function internalResult(err: unknown, tool: string, scope: CallScope) {
  const requestId = err instanceof RemoteInternalError ? err.requestId : scope.requestId();
  scope.log.error({ err, tool, requestId }, 'MCP tool call failed');
  return result(
    `INTERNAL: Something went wrong on our side. Retry; if it persists, report request id ${requestId}.`,
  );
}

/** `<CODE>: <what went wrong>. <what to do next>` as an isError result. */
export function errorResult(
  err: unknown,
  tool: Pick<ToolDefinition, 'name' | 'coreNames'>,
  scope: CallScope,
) {
  if (err instanceof ToolError) return result(`${err.code}: ${err.message.replace(/\.$/, '')}. ${err.next}`);
  if (!isAppError(err)) return internalResult(err, tool.name, scope);
  // Field messages already quoted by the main message are not repeated; paths use the tool's argument names.
  const names = tool.coreNames ?? {};
  const fields = err.errors
    ?.filter((e) => !err.message.includes(e.message))
    .map((e) => `${renamePath(e.path, names)} ${renamePathsIn(e.message, names)}`)
    .join('; ');
  const what = `${err.message.replace(/\.$/, '')}${fields ? ` (${fields})` : ''}`;
  return result(`${err.code.toUpperCase()}: ${what}. ${NEXT_STEP[err.code] ?? ''}`.trim());
}

/** What one run of a tool gets from its caller: abort, progress, and the scope its failures are logged under. */
interface ToolRun {
  signal: AbortSignal;
  progress: ToolContext['progress'];
  scope: CallScope;
  asTask?: boolean;
  /** The client sent a progress token: progress every 5 s resets its call timeout. */
  reportsProgress?: boolean;
}

/** The per-call body: the tool's handler, its output checked, every failure an `isError` result. */
async function runTool(tool: ToolDefinition, args: unknown, backend: McpBackend, run: ToolRun) {
  try {
    const context: ToolContext = {
      backend,
      signal: run.signal,
      progress: run.progress,
      asTask: run.asTask,
      outlivesClientTimeout: run.asTask === true || run.reportsProgress === true,
    };
    const structured = (await tool.handler(args as never, context)) as Record<string, unknown>;
    // Checked here rather than left to the SDK, whose refusal text would name our own schema to the agent.
    const checked = tool.outputSchema.safeParse(structured);
    if (!checked.success) throw new Error(`${tool.name} broke its output schema: ${checked.error.message}`);
    return {
      structuredContent: structured,
      content: [
        { type: 'text' as const, text: JSON.stringify(structured) },
        ...rawLinks(args as Record<string, unknown>, structured),
      ],
    };
  } catch (err) {
    // A cancelled call's answer is never read; its abort is no failure worth a log line.
    if (run.signal.aborted && !isAppError(err) && !(err instanceof ToolError)) {
      return result('CANCELLED: The call was cancelled. Call again if the result is still needed.');
    }
    return errorResult(err, tool, run.scope);
  }
}

function register(
  server: McpServer,
  tool: ToolDefinition,
  backendFor: () => McpBackend,
  options: McpServerOptions,
): RegisteredTool {
  return server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      // Strict: an unknown argument (`subject` for subject_contains) is refused, never silently ignored.
      inputSchema: refusalAsValue(portableSchema(tool.inputSchema.strict())),
      outputSchema: portableSchema(tool.outputSchema),
      annotations: { title: tool.title, ...tool.annotations },
    },
    async (args: unknown, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      type Result = ReturnType<typeof refusedArgsResult> | Awaited<ReturnType<typeof runTool>>;
      return traceToolCall<Result>(tool.name, ctx.mcpReq._meta, async () => {
        if (args instanceof RefusedArgs) return refusedArgsResult(tool.name, args);
        return runTool(tool, args, backendFor(), {
          signal: ctx.mcpReq.signal,
          scope: scopeOf(ctx as HandlerContext, options),
          reportsProgress: token !== undefined,
          async progress(progress, total, message) {
            if (token === undefined) return;
            await ctx.mcpReq.notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), message },
            });
          },
        });
      });
    },
  );
}

/**
 * `INVALID_INPUT: Unknown argument "subject" for wait_for_email. Did you mean subject_contains? ...` when the
 * SDK's refusal is about unrecognized keys (the schemas are strict), naming the closest valid argument.
 */
function unknownArgs(toolName: string, detail: string): string | undefined {
  const tool = tools.find((t) => t.name === toolName);
  const keys = /Unrecognized keys?: ((?:"[^"]*"(?:, )?)+)/.exec(detail);
  if (tool === undefined || keys === null) return undefined;
  const valid = Object.keys(tool.inputSchema.shape);
  const given = [...(keys[1] ?? '').matchAll(/"([^"]*)"/g)].map((m) => m[1] ?? '');
  const each = given.map((g) => {
    const near = closestArg(g, valid);
    return `"${g}"${near === undefined ? '' : ` (did you mean ${near}?)`}`;
  });
  return (
    `INVALID_INPUT: Unknown argument${given.length > 1 ? 's' : ''} ${each.join(', ')} for ${toolName}. ` +
    `Call again with only its arguments: ${valid.join(', ')}.`
  );
}

/**
 * Arguments that did not validate (with core's schemas, see tools/coreArgs.ts) in the `<CODE>: <what>. <next>`
 * form agents get for every other error, as INVALID_INPUT like core's own refusals.
 */
function refusedArgsResult(toolName: string, refused: RefusedArgs) {
  const unknown = unknownArgs(toolName, refused.detail);
  if (unknown !== undefined) return result(unknown);
  return result(
    `INVALID_INPUT: Invalid arguments for ${toolName}: ${refused.detail.trim().replace(/\.$/, '')}. ` +
      'Fix the named arguments (see the tool input schema) and call again.',
  );
}

/** The raw source of an email or the raw bytes of a request, read with resources/read: never cut. */
function registerRawResources(server: McpServer, backendFor: () => McpBackend): void {
  const read = async (uri: URL, mimeType: string, bytes: () => Promise<Uint8Array>) => {
    let data: Uint8Array;
    try {
      data = await bytes();
    } catch (err) {
      if (isAppError(err) && err.code === 'not_found') throw new ResourceNotFoundError(uri.href, err.message);
      throw err;
    }
    const buffer = Buffer.from(data);
    // Text when it is UTF-8 (most mail and JSON webhooks), else base64 bytes: either way exact.
    const text = new TextDecoder('utf-8', { fatal: false }).decode(buffer);
    const exact = Buffer.from(text, 'utf8').equals(buffer);
    return {
      contents: [
        exact
          ? { uri: uri.href, mimeType, text }
          : { uri: uri.href, mimeType, blob: buffer.toString('base64') },
      ],
    };
  };
  const id = (v: string | string[] | undefined) => (Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));
  server.registerResource(
    'email_raw',
    new ResourceTemplate(emailRawUri('{sandbox_id}', '{email_id}'), { list: undefined }),
    {
      title: 'Raw email source',
      description: 'An email exactly as received (RFC 5322).',
      mimeType: 'message/rfc822',
    },
    (uri, vars) =>
      read(uri, 'message/rfc822', () => backendFor().emailRaw(id(vars.sandbox_id), id(vars.email_id))),
  );
  server.registerResource(
    'request_raw',
    new ResourceTemplate(requestRawUri('{sandbox_id}', '{request_id}'), { list: undefined }),
    {
      title: 'Raw HTTP request',
      description: 'A captured request exactly as received: request line, headers and body.',
      mimeType: 'message/http',
    },
    (uri, vars) =>
      read(uri, 'message/http', () => backendFor().requestRaw(id(vars.sandbox_id), id(vars.request_id))),
  );
}

export function buildMcpServer(
  backendFor: () => McpBackend,
  version: string,
  options: McpServerOptions = {},
): McpServer {
  const server = new McpServer(
    { name: 'sandtrap', title: 'sandtrap capture sandbox', version },
    // The tool list is fixed for the life of the server, so clients are told not to watch for changes.
    {
      instructions: SERVER_INSTRUCTIONS,
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    },
  );
  const registered = new Map(tools.map((t) => [t.name, register(server, t, backendFor, options)]));
  registerRawResources(server, backendFor);
  if (options.tasks !== undefined) {
    const byName = new Map(tools.map((t) => [t.name, t]));
    installTasks(server, {
      ...options.tasks,
      tools: registered,
      taskTools: TASK_TOOLS,
      toolError: (err, name) => internalResult(err, name, scopeOf({}, options)),
      async runTool(name, args, run) {
        const tool = byName.get(name);
        if (tool === undefined) throw new Error(`No tool ${name}`);
        const scope = scopeOf(run.request as HandlerContext, options);
        return runTool(tool, args, backendFor(), { ...run, scope, asTask: true });
      },
    });
  }
  return server;
}
