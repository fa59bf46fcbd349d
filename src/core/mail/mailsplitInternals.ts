// The one private member of mailsplit sandtrap reads: a MimeNode's parsed boundary, `_boundary` (the package
// is pinned exactly; test/core/mailsplitInternals.test.ts fails, naming the version, when an upgrade moves it).
import type { MimeNode } from '@zone-eu/mailsplit';

/** The multipart boundary mailsplit parsed from the node's Content-Type, as its splitter compares lines to it. */
export function boundaryOf(node: MimeNode): Buffer | null {
  const boundary: unknown = node._boundary;
  if (boundary === false) return null;
  if (!Buffer.isBuffer(boundary)) {
    throw new Error(
      '@zone-eu/mailsplit no longer keeps a MimeNode boundary in _boundary (see package.json pin)',
    );
  }
  return boundary;
}
