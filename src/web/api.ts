// The dashboard's one way to call the REST API: an openapi-fetch client typed by the OpenAPI document's paths,
// sending the session cookie, and turning every non-2xx answer into an ApiError.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../openapi/schema.d.ts';

export type Schemas = components['schemas'];
export type Sandbox = Schemas['Sandbox'];
export type MockRule = Schemas['MockRule'];
export type MockRuleInput = Schemas['MockRuleInput'];
export type Problem = Schemas['ValidationProblem'];

/** A non-2xx answer, with the problem document the API sent (or one made up from the status). */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  constructor(status: number, problem: Problem) {
    super(problem.detail ?? problem.title ?? `The server answered ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
  }
}

type UnauthorizedListener = () => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** Called whenever the API answers 401: the session ended (expired, signed out elsewhere, key revoked). */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** Rejects every call that did not get a 2xx, so a view's `await` yields only a success body. */
const problems: Middleware = {
  onError({ error }) {
    // A view that aborts its call (it moved on) sees the AbortError, not a network failure.
    if (error instanceof DOMException && error.name === 'AbortError') return error;
    return new ApiError(0, {
      title: 'Network error',
      detail: 'The sandtrap server could not be reached. Check that it is running, then try again.',
    });
  },
  async onResponse({ response, schemaPath }) {
    if (response.ok) return undefined;
    const text = await response.text();
    const parsed = parseJson(text);
    const problem: Problem = isProblem(parsed)
      ? parsed
      : { status: response.status, title: response.statusText, detail: text.slice(0, 200) || null };
    // The session probe's own 401 is the normal signed-out answer, not an ended session.
    if (response.status === 401 && schemaPath !== '/session')
      for (const listener of unauthorizedListeners) listener();
    throw new ApiError(response.status, problem);
  },
};

/** The API answers errors with problem+json; anything else (a proxy's HTML page) gets a problem made up for it. */
function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Calls `/api/v1` paths, typed by path and method from openapi/schema.d.ts; throws ApiError for a non-2xx. */
export const client = createClient<paths>({
  baseUrl: '/api/v1',
  credentials: 'same-origin',
  headers: { Accept: 'application/json, application/problem+json' },
});
client.use(problems);

/** The body of a call that answers with one: the client has already thrown for anything but a 2xx. */
export async function ok<Data>(call: Promise<{ data?: Data }>): Promise<Data> {
  const { data } = await call;
  if (data === undefined)
    throw new ApiError(0, { title: 'Empty answer', detail: 'The server sent no body.' });
  return data;
}

/** What a person should read for a failed call: the problem's detail, else its title. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    return err.problem.detail ?? err.problem.title ?? `The server answered ${err.status}.`;
  }
  return err instanceof Error ? err.message : String(err);
}
