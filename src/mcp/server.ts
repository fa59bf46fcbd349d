// Builds the MCP server from the tool table: registration, the server instructions, progress, cancellation,
// and the one place where errors become `isError` results that tell the agent what to do next.
import { McpServer } from '@modelcontextprotocol/server';
import { isAppError } from '../core/errors.ts';
import type { McpBackend } from './backend.ts';
import { ToolError, type ToolContext, type ToolDefinition } from './toolkit.ts';
import { tools } from './tools/index.ts';

export const SERVER_INSTRUCTIONS = `sandtrap captures email and HTTP requests from the app you are testing; nothing is delivered or forwarded.
Canonical flow:
1. create_sandbox -> returns email_address, smtp {host, port, username, password} (STARTTLS) and capture_url.
2. Point the app at them: sign up with email_address, or configure its SMTP settings; send webhooks/API calls to capture_url/<path>.
3. wait_for_email (or wait_for_request) with the sandbox_id. The email comes back with otp.code and links already extracted.
4. Use the code or link. To wait for the next item in the same sandbox, pass after: <id of the item you handled>.
Timeouts are results (status "timeout"), not errors. set_mock_rules controls what capture_url replies.`;

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

/** `<CODE>: <what went wrong>. <what to do next>` as an isError result. */
export function errorResult(err: unknown) {
  let text: string;
  if (err instanceof ToolError) text = `${err.code}: ${err.message.replace(/\.$/, '')}. ${err.next}`;
  else if (isAppError(err)) {
    // Field messages already quoted by the main message are not repeated.
    const fields = err.errors
      ?.filter((e) => !err.message.includes(e.message))
      .map((e) => `${e.path} ${e.message}`)
      .join('; ');
    const what = `${err.message.replace(/\.$/, '')}${fields ? ` (${fields})` : ''}`;
    text = `${err.code.toUpperCase()}: ${what}. ${NEXT_STEP[err.code] ?? ''}`.trim();
  } else if (err instanceof Error && err.name !== 'Error' && !/^[A-Z]/.test(err.message)) {
    throw err;
  } else if (err instanceof Error && err.message !== '' && err.constructor === Error) {
    // Plain errors from extraction carry a message written for the caller (a bad pattern).
    text = `INVALID_ARGUMENT: ${err.message.replace(/\.$/, '')}. Fix the pattern and call again.`;
  } else throw err;
  return { isError: true, content: [{ type: 'text' as const, text }] };
}

function register(server: McpServer, tool: ToolDefinition, backendFor: () => McpBackend): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: { title: tool.title, ...tool.annotations },
    },
    async (args: unknown, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      const context: ToolContext = {
        backend: backendFor(),
        signal: ctx.mcpReq.signal,
        async progress(progress, total, message) {
          if (token === undefined) return;
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), message },
          });
        },
      };
      try {
        const result = (await tool.handler(args as never, context)) as Record<string, unknown>;
        return {
          structuredContent: result,
          content: [{ type: 'text' as const, text: JSON.stringify(result) }],
        };
      } catch (err) {
        return errorResult(err);
      }
    },
  );
}

/**
 * The SDK validates arguments before a handler runs and words that refusal itself; reword it in the
 * `<CODE>: <what>. <next>` form agents get for every other error. (`createToolError` is the SDK's one hook
 * for the text of a failed call; it is not in its public types.)
 */
function rewordSdkErrors(server: McpServer): void {
  const target = server as unknown as { createToolError(message: string): unknown };
  const original = target.createToolError.bind(server);
  target.createToolError = (message: string) => {
    const invalid =
      /^(?:MCP error -?\d+: )?Input validation error: Invalid arguments for tool (\S+): ([\s\S]*)$/.exec(
        message,
      );
    if (invalid === null) return original(message);
    return original(
      `INVALID_ARGUMENT: Invalid arguments for ${invalid[1]}: ${(invalid[2] ?? '').trim().replace(/\.$/, '')}. ` +
        'Fix the named arguments (see the tool input schema) and call again.',
    );
  };
}

export function buildMcpServer(backendFor: () => McpBackend, version: string): McpServer {
  const server = new McpServer(
    { name: 'sandtrap', title: 'sandtrap capture sandbox', version },
    { instructions: SERVER_INSTRUCTIONS },
  );
  for (const tool of tools) register(server, tool, backendFor);
  rewordSdkErrors(server);
  return server;
}
