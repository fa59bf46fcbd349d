// Replays a captured request to a URL a person gives, from the server, under the same target rules as
// outgoing webhooks (WEBHOOK_TARGETS or the default rule): a refused target is invalid input naming the rule.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { invalidInput, notFound } from '../errors.ts';
import { isUtf8 } from '../http/views.ts';
import { ownedSandboxId } from '../ownedSandbox.ts';
import { replayInput } from '../schemas.ts';
import { findRequest } from '../store/repos/requests.ts';
import type { Database, NameValue } from '../store/schema.ts';
import { vetTarget, type TargetPolicy } from '../webhooks/targets.ts';
import { parseId, parseInput } from '../validation.ts';
import { sendPinned } from './send.ts';

/** Headers that describe one hop (or the old target), not the request: the new connection sets its own. */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'expect',
]);

export interface ReplayResult {
  url: string;
  method: string;
  /** null when no answer came (refused connection, timeout): `error` says why. */
  statusCode: number | null;
  headers: NameValue[];
  body: string | null;
  bodyEncoding: 'utf8' | 'base64';
  bodyTruncated: boolean;
  sizeBytes: number;
  error: string | null;
  durationMs: number;
}

export function createReplayService(
  db: Kysely<Database>,
  clock: Clock,
  policy: TargetPolicy,
  timeoutMs: number,
) {
  return {
    async replay(
      workspaceId: string,
      sandboxId: string,
      requestId: string,
      body: unknown,
    ): Promise<ReplayResult> {
      const owned = await ownedSandboxId(db, clock, workspaceId, parseId(sandboxId, 'sandboxId'));
      const row = await findRequest(db, owned, parseId(requestId, 'requestId'));
      if (row === undefined) throw notFound('The request');
      const { url } = parseInput(replayInput, body, 'request body');
      const vetted = await vetTarget(url, policy);
      if (!vetted.ok) {
        throw invalidInput(`The replay URL is not allowed: ${vetted.reason}.`, [
          { path: 'url', message: vetted.reason },
        ]);
      }
      const headers = row.headers.filter(([name]) => !HOP_HEADERS.has(name.toLowerCase()));
      const answer = await sendPinned(
        url,
        vetted.addresses,
        { method: row.method, headers, body: row.body },
        timeoutMs,
      );
      const text = isUtf8(answer.body);
      return {
        url,
        method: row.method,
        statusCode: answer.statusCode,
        headers: answer.headers.map(([name, value]) => ({ name, value })),
        body: answer.body.byteLength === 0 ? null : answer.body.toString(text ? 'utf8' : 'base64'),
        bodyEncoding: text ? 'utf8' : 'base64',
        bodyTruncated: answer.sizeBytes > answer.body.byteLength,
        sizeBytes: answer.sizeBytes,
        error: answer.error,
        durationMs: answer.durationMs,
      };
    },
  };
}
