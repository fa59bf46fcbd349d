// The query string of a REST call: `?a=1&b=2`, or '' when there are no parameters.
export function qs(query: Record<string, string>): string {
  const s = new URLSearchParams(query).toString();
  return s === '' ? '' : `?${s}`;
}
