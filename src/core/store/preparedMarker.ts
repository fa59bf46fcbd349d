// The comment that marks a statement to run as a named prepared statement, on both stores.

const MARKER = /^\/\* prepared ([a-z0-9_]+) \*\/ /;

/**
 * The marker to put at the start of a statement's text: the store parses and plans that text once (per
 * PostgreSQL connection; once for PGlite) and runs it by name after. Each name must always go with the same text.
 */
export function preparedName(name: string): string {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`invalid prepared statement name: ${name}`);
  return `/* prepared sandtrap_${name} */ `;
}

/** The statement name a text was marked with, or undefined. */
export function preparedNameOf(text: string): string | undefined {
  return MARKER.exec(text)?.[1];
}
