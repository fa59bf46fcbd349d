// Ends open waits the way their timeout would, right after an arrival each of them has judged: a test can
// assert what a wait reports when it ends (204, "timeout", what did not match) without a short timeout racing
// the send on a busy machine.
import assert from 'node:assert/strict';
import type { TestServer, TestServerWorkspace } from './server.ts';
import { eventually } from './poll.ts';

/** For a wait that only an event may end: longer than any test runs. */
export const NEVER_SECONDS = 300;

/**
 * Opens an unfiltered witness wait on the sandbox (for items from now on), runs `send`, and once the witness
 * has returned the arrival, ends every open wait of the server as its timeout would (WaitService.endAll).
 * The waits under test must already be open (count them first): every wait hears an arrival in the same turn
 * and reads it through one shared store read, so when the witness has answered, each of them has looked at it.
 */
export async function endWaitsAfterArrival<T>(
  server: TestServer,
  ws: TestServerWorkspace,
  sandboxId: string,
  kind: 'messages' | 'requests',
  send: () => Promise<T>,
): Promise<T> {
  const open = server.core.waits.active();
  // Strictly after everything already captured, so the witness cannot answer with an older item.
  server.clock.advance(1);
  const since = encodeURIComponent(server.clock.now().toISOString());
  const witness = ws.api(
    `/sandboxes/${sandboxId}/${kind}/wait?timeoutSeconds=${NEVER_SECONDS}&since=${since}`,
  );
  await eventually('the witness wait to open', () => server.core.waits.active() === open + 1, 20_000, 10);
  const sent = await send();
  const res = await witness;
  const text = await res.text();
  assert.equal(res.status, 200, `the witness wait returned the arrival: ${text}`);
  server.core.waits.endAll();
  return sent;
}
