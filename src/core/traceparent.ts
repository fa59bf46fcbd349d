// The W3C Trace Context `traceparent` a captured message or request arrived with: validated, then stored on
// the item so a wait that returns it can link the sender's trace (issue 38).

/** Version 00 exactly as the W3C Trace Context recommendation writes it: lowercase hex, dash-separated. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** The value when it is a valid version-00 traceparent (surrounding blanks ignored), otherwise null. */
export function validTraceparent(value: string | undefined): string | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  const match = TRACEPARENT.exec(trimmed);
  if (match === null || match[1] === ZERO_TRACE_ID || match[2] === ZERO_SPAN_ID) return null;
  return trimmed;
}

/**
 * The traceparent among headers (any case of the name). The recommendation says a receiver with several
 * traceparent headers must ignore them, so more than one gives null.
 */
export function traceparentOf(headers: Iterable<readonly [string, string]>): string | null {
  let found: string | undefined;
  for (const [name, value] of headers) {
    if (name.length !== 11 || name.toLowerCase() !== 'traceparent') continue;
    if (found !== undefined) return null;
    found = value;
  }
  return validTraceparent(found);
}
