// Contract of mailsplit's private `_boundary` (mailsplitInternals.ts): mailsplit is pinned exactly, and when an
// upgrade moves the parsed boundary this fails naming the version.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { MimeNode } from '@zone-eu/mailsplit';
import { boundaryOf } from '../../src/core/mail/mailsplitInternals.ts';

const VERSION = (
  JSON.parse(readFileSync('node_modules/@zone-eu/mailsplit/package.json', 'utf8')) as { version: string }
).version;
const MAILSPLIT = `@zone-eu/mailsplit ${VERSION}`;

function parsed(header: string): MimeNode {
  const node = new MimeNode(false);
  node.addHeaderChunk(Buffer.from(header, 'latin1'));
  node.parseHeaders();
  return node;
}

describe(`mailsplit's parsed boundary (${MAILSPLIT})`, () => {
  it("is the Content-Type boundary's bytes for a multipart node", () => {
    const node = parsed('Content-Type: multipart/mixed; boundary="=_b0und"\r\n\r\n');
    let boundary: Buffer | null = null;
    assert.doesNotThrow(() => (boundary = boundaryOf(node)), `${MAILSPLIT} no longer keeps _boundary`);
    assert.deepEqual(boundary, Buffer.from('=_b0und'), `${MAILSPLIT} keeps another value in _boundary`);
  });

  it('is null for a node that is not multipart', () => {
    const node = parsed('Content-Type: text/plain; charset=utf-8\r\n\r\n');
    assert.equal(boundaryOf(node), null, `${MAILSPLIT} no longer marks "no boundary" with _boundary false`);
  });
});
