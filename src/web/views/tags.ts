// Tags as people type them ("env=staging, team=web") and as the API holds them (a string map).

export function formatTags(tags: Record<string, string>): string {
  return Object.entries(tags)
    .map(([key, value]) => (value ? `${key}=${value}` : key))
    .join(', ');
}

/** Parses "a=1, b=2"; returns an error sentence for an entry without a key. */
export function parseTags(text: string): { tags: Record<string, string> } | { error: string } {
  const tags: Record<string, string> = {};
  for (const part of text.split(',')) {
    const entry = part.trim();
    if (!entry) continue;
    const eq = entry.indexOf('=');
    const key = (eq === -1 ? entry : entry.slice(0, eq)).trim();
    const value = eq === -1 ? '' : entry.slice(eq + 1).trim();
    if (!key) return { error: `"${entry}" has no key: write tags as key=value, separated by commas.` };
    tags[key] = value;
  }
  return { tags };
}
