// The framework-free shape of an MCP tool (name, schemas, annotations, handler) and what a handler gets.
import type { z } from 'zod';
import type { ErrorCode } from '../core/errors.ts';
import type { McpBackend } from './backend.ts';

export interface ToolContext {
  backend: McpBackend;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
  /**
   * Whether the call can outlast a client's 60 s call timeout: the client sent a progress token (progress every
   * 5 s resets it) or runs the call as a task.
   */
  outlivesClientTimeout: boolean;
  /** Reports progress when the client asked for it (a progress token); a no-op otherwise. */
  progress(progress: number, total: number | undefined, message: string): Promise<void>;
  /** The call runs as an MCP task (tasks/): no client waits on it, so no client timeout applies to a wait. */
  asTask?: boolean;
}

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** Built from core's schemas (see tools/coreArgs.ts), so the tool refuses what REST refuses. */
  inputSchema: I;
  outputSchema: O;
  annotations: ToolAnnotations;
  /** Core field name -> argument name, for the paths of core's invalid_input errors (`mocks` -> `rules`). */
  coreNames?: Readonly<Record<string, string>>;
  handler(args: z.output<I>, ctx: ToolContext): Promise<z.input<O>>;
}

/** Keeps each tool file's types checked while the table holds them all. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolDefinition<I, O>,
): ToolDefinition {
  // zod: a handler of one object schema is no handler of every object (parameter variance), so the checked
  // definition is widened for the table by a cast.
  return tool as unknown as ToolDefinition;
}

/** The one vocabulary of error texts: core's closed set of codes, upper-cased, as every refusal starts. */
export type ToolErrorCode = Uppercase<ErrorCode>;

/** A refusal the agent can act on: `<CODE>: <what went wrong>. <what to do next>`. */
export class ToolError extends Error {
  readonly code: ToolErrorCode;
  readonly next: string;
  constructor(code: ToolErrorCode, message: string, next: string) {
    super(message);
    this.code = code;
    this.next = next;
  }
}
