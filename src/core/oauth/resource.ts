// RFC 8707 resource indicators: the MCP URL, compared without a fragment or one trailing slash.

function normalise(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    url.hash = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return undefined;
  }
}

export function sameResource(presented: string, ours: string): boolean {
  const a = normalise(presented);
  return a !== undefined && a === normalise(ours);
}
