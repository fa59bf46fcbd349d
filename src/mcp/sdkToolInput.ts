// Tool arguments as McpServer hands them to a tool: through a Standard Schema that never refuses, so arguments
// that do not validate reach our callback as a RefusedArgs value, and the refusal is worded by us (server.ts).
import type { z } from 'zod';

/** Arguments that did not validate: the issues, `path: message` joined by ", " as the SDK words them. */
export class RefusedArgs {
  readonly detail: string;
  constructor(detail: string) {
    this.detail = detail;
  }
}

type Issue = { message: string; path?: readonly unknown[] | undefined };

function issuesText(issues: readonly Issue[]): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((p) =>
        String(typeof p === 'object' && p !== null ? (p as { key: unknown }).key : p),
      );
      return path.length === 0 ? issue.message : `${path.join('.')}: ${issue.message}`;
    })
    .join(', ');
}

/**
 * `schema` (a Standard Schema with JSON Schema, as registerTool takes it) whose failed validation succeeds with
 * a RefusedArgs value: McpServer would otherwise word the refusal itself and send it as the call's result.
 * Its JSON Schema, as tools/list shows it, is `schema`'s own.
 */
export function refusalAsValue<S extends z.ZodType>(schema: S): S {
  const std = schema['~standard'];
  const wrapped = {
    '~standard': {
      ...std,
      validate: async (value: unknown) => {
        const checked = await std.validate(value);
        return checked.issues === undefined
          ? checked
          : { value: new RefusedArgs(issuesText(checked.issues)) };
      },
    },
  };
  // zod: the SDK reads only '~standard', so this stands in for S, which zod gives no way to build.
  return wrapped as unknown as S;
}
