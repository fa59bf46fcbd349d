// Loads the published OpenAPI document once, as the object served at /openapi/v1.json.
import { readFileSync } from 'node:fs';

let cached: Record<string, unknown> | undefined;

/** openapi/v1.yaml is the source; v1.json is generated from it (`npm run openapi:types`, checked in CI). */
export function openapiDocument(): Record<string, unknown> {
  cached ??= JSON.parse(readFileSync(new URL('../../openapi/v1.json', import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
  return cached;
}
