// Loads the published OpenAPI document (openapi/v1.yaml) once, as the object served at /openapi/v1.json.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

let cached: Record<string, unknown> | undefined;

export function openapiDocument(): Record<string, unknown> {
  cached ??= parse(readFileSync(new URL('../../openapi/v1.yaml', import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
  return cached;
}
