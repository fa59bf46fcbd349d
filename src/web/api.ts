// The dashboard's one way to call the REST API: JSON over fetch with the session cookie, typed from the OpenAPI schema.
import type { components } from '../../openapi/schema.d.ts';

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

/** Calls `/api/v1${path}`; resolves with the parsed JSON (undefined for 204), throws ApiError otherwise. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json, application/problem+json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, {
      title: 'Network error',
      detail: 'The sandtrap server could not be reached. Check that it is running, then try again.',
    });
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed = parseJson(text);
  if (!response.ok) {
    const problem: Problem =
      parsed && typeof parsed === 'object'
        ? (parsed as Problem)
        : { status: response.status, title: response.statusText, detail: text.slice(0, 200) || null };
    // The session probe's own 401 is the normal signed-out answer, not an ended session.
    if (response.status === 401 && path !== '/session')
      for (const listener of unauthorizedListeners) listener();
    throw new ApiError(response.status, problem);
  }
  return parsed as T;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Builds `?a=1&b=2` from the defined, non-empty values. */
export function query(params: Record<string, string | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '') continue;
    search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** What a person should read for a failed call: the problem's detail, else its title. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    return err.problem.detail ?? err.problem.title ?? `The server answered ${err.status}.`;
  }
  return err instanceof Error ? err.message : String(err);
}
