// The MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, protocol revision 2026-07-28) on one
// McpServer: a tools/call of a task-capable tool from a client that declares the extension on that request is
// answered at once with a task handle (`resultType: "task"`) while the call runs on here, outliving the HTTP
// request; the client reads it back with tasks/get, from any later connection, and may tasks/cancel it.
//
// Only public SDK API is used. McpServer's own tools/call handler checks every successful result against the
// tool's output schema, which a task handle cannot pass, so this module takes the tools/call slot of the
// low-level Server (setRequestHandler) and does what McpServer's handler does for every call that does not
// become a task: find the tool, check the arguments with its schema in the SDK's wording, call its registered
// callback, project the result (see callTool below). tasks/get and tasks/cancel are registered with explicit
// schemas, which is what lets them through the SDK's era gate on 2026-07-28; tasks/update is a custom method.
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type McpServer,
  type RegisteredTool,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { TaskStore } from './store.ts';
import { RefusedArgs } from '../sdkToolInput.ts';

export { TaskStore } from './store.ts';

/** The extension's identifier, in client (per request) and server capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What a task's run of a tool gets: no client waits on it, so no progress token and no client timeout. */
export interface TaskRun {
  signal: AbortSignal;
  /** Becomes the task's statusMessage (the extension carries no progress notifications). */
  progress(progress: number, total: number | undefined, message: string): Promise<void>;
  /** The tools/call request that created the task (its correlation id and logger). */
  request: ServerContext;
}

export interface InstallTasksOptions {
  store: TaskStore;
  /** Whom the tasks of this server's requests belong to (a workspace): only the same owner reads them back. */
  owner: string;
  /** The registered tools by name, as McpServer.registerTool returned them. */
  tools: ReadonlyMap<string, RegisteredTool>;
  /** The tools a call of which may become a task. */
  taskTools: ReadonlySet<string>;
  /** Runs a tool outside any request, to its end; the same per-call body the registered callbacks run. */
  runTool(name: string, args: unknown, run: TaskRun): Promise<CallToolResult>;
  /** The isError result for a tool callback that threw (they return their failures as results). */
  toolError(err: unknown, tool: string): CallToolResult;
}

const TaskIdParams = z.looseObject({ taskId: z.string().min(1) });
const UpdateParams = z.looseObject({ taskId: z.string().min(1), inputResponses: z.unknown().optional() });

/** Whether this request declared the extension in its per-request client capabilities (2026-07-28 envelope). */
function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
    { extensions?: Record<string, unknown> } | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

function requireTasks(ctx: ServerContext): void {
  if (!declaresTasks(ctx)) {
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      `Missing required client capability: declare the ${TASKS_EXTENSION} extension to use tasks`,
    );
  }
}

function unknownTask(taskId: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Unknown task ${taskId}: it expired, was never created, or belongs to another workspace`,
  );
}

export function installTasks(server: McpServer, options: InstallTasksOptions): void {
  const { store, owner } = options;
  server.server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });

  /** Starts the call as a task and answers with its handle; undefined when the store keeps no more tasks. */
  function startTask(name: string, args: unknown, ctx: ServerContext) {
    const created = store.create(owner, `Running ${name}.`);
    if (created === undefined) return undefined;
    const { view, signal } = created;
    const run: TaskRun = {
      signal,
      request: ctx,
      async progress(_progress, _total, message) {
        store.note(view.taskId, message);
      },
    };
    // The task outlives this request: its outcome is only ever read back through tasks/get.
    void options.runTool(name, args, run).then(
      (result) =>
        store.complete(
          view.taskId,
          result as Record<string, unknown>,
          result.isError === true ? `${name} ended with an error result.` : `${name} finished.`,
        ),
      (err: unknown) =>
        store.fail(view.taskId, {
          code: ProtocolErrorCode.InternalError,
          message: err instanceof Error ? err.message : String(err),
        }),
    );
    return { resultType: 'task', ...view };
  }

  /** McpServer's tools/call, with the task branch for the task-capable tools. */
  async function callTool(name: string, rawArgs: unknown, ctx: ServerContext) {
    const tool = options.tools.get(name);
    if (tool === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    if (!tool.enabled) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} disabled`);
    const schema = tool.inputSchema;
    if (schema === undefined) throw new Error(`Tool ${name} has no input schema`);
    const checked = await schema['~standard'].validate(rawArgs ?? {});
    // The schemas never refuse (sdkToolInput.ts): refused arguments go to the callback, which words them.
    if (checked.issues !== undefined) throw new Error(`Tool ${name}'s input schema refused its arguments`);
    const args = checked.value;
    if (options.taskTools.has(name) && declaresTasks(ctx) && !(args instanceof RefusedArgs)) {
      const task = startTask(name, args, ctx);
      if (task !== undefined) return task;
    }
    const handler = tool.handler as (args: unknown, ctx: ServerContext) => Promise<CallToolResult>;
    let result: CallToolResult;
    try {
      result = await handler(args, ctx);
    } catch (err) {
      return options.toolError(err, name);
    }
    return server.server.projectCallToolResult(result, tool.outputSchemaJson);
  }

  // A CreateTaskResult is no CallToolResult: the handler's declared result type cannot name it.
  server.server.setRequestHandler(
    'tools/call',
    async (request, ctx) =>
      (await callTool(request.params.name, request.params.arguments, ctx)) as CallToolResult,
  );

  server.server.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params, ctx) => {
    requireTasks(ctx);
    const task = store.get(owner, params.taskId);
    if (task === undefined) throw unknownTask(params.taskId);
    return { ...task };
  });

  server.server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params, ctx) => {
    requireTasks(ctx);
    if (!store.cancel(owner, params.taskId)) throw unknownTask(params.taskId);
    return {};
  });

  // No task of ours ever asks for input, so there is never an outstanding key: responses are ignored (SEP-2663).
  server.server.setRequestHandler('tasks/update', { params: UpdateParams }, async (params, ctx) => {
    requireTasks(ctx);
    if (!store.has(owner, params.taskId)) throw unknownTask(params.taskId);
    return {};
  });
}
