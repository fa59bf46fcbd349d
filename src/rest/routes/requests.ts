// The HTTP stream of a sandbox: list, detail with parsed views, read flag, raw request and raw reply, file
// parts, delete one, clear.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { attachmentIndex, listRequestsQuery, updateRequestInput, uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import { sendDownload } from '../download.ts';
import { pageDto, replayResultDto, requestDetailDto, requestSummaryDto } from '../mappers.ts';

const sandboxParams = z.object({ sandboxId: uuid });
const requestParams = sandboxParams.extend({ requestId: uuid });
const fileParams = requestParams.extend({ index: attachmentIndex });

export function requestRoutes(app: FastifyInstance, core: Core): void {
  const requests = core.requests;
  const base = '/sandboxes/:sandboxId/requests';

  app.get(base, async (request) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    const query = parseInput(listRequestsQuery, request.query, 'query string');
    return pageDto(await requests.list(request.principal.workspaceId, sandboxId, query), requestSummaryDto);
  });

  app.delete(base, async (request, reply) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    await requests.clear(request.principal.workspaceId, sandboxId);
    return reply.code(204).send();
  });

  // Bulk marks and deletes (the dashboard's multi-select, mark all read, and a clear up to what was seen).
  app.post(`${base}/read`, async (request) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    return core.streamActions.markRead(request.principal.workspaceId, sandboxId, 'requests', request.body);
  });

  app.post(`${base}/delete`, async (request) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    return core.streamActions.deleteMany(request.principal.workspaceId, sandboxId, 'requests', request.body);
  });

  app.get(`${base}/:requestId`, async (request) => {
    const { sandboxId, requestId } = parseInput(requestParams, request.params, 'path');
    return requestDetailDto(await requests.get(request.principal.workspaceId, sandboxId, requestId));
  });

  app.patch(`${base}/:requestId`, async (request, reply) => {
    const { sandboxId, requestId } = parseInput(requestParams, request.params, 'path');
    const { isRead } = parseInput(updateRequestInput, request.body, 'request body');
    await requests.setRead(request.principal.workspaceId, sandboxId, requestId, isRead);
    return reply.code(204).send();
  });

  app.delete(`${base}/:requestId`, async (request, reply) => {
    const { sandboxId, requestId } = parseInput(requestParams, request.params, 'path');
    await requests.delete(request.principal.workspaceId, sandboxId, requestId);
    return reply.code(204).send();
  });

  app.post(`${base}/:requestId/replay`, async (request) => {
    const { sandboxId, requestId } = parseInput(requestParams, request.params, 'path');
    const result = await core.replay.replay(
      request.principal.workspaceId,
      sandboxId,
      requestId,
      request.body,
    );
    return replayResultDto(result);
  });

  app.get(`${base}/:requestId/raw`, async (request, reply) => {
    const { sandboxId, requestId } = parseInput(requestParams, request.params, 'path');
    const raw = await requests.raw(request.principal.workspaceId, sandboxId, requestId);
    return sendDownload(reply, raw, 'message/http', `${requestId}.http`);
  });

  // The reply the mock sent, as an HTTP message (status line, headers as sent, the body's first 64 KB).
  app.get(`${base}/:requestId/response/raw`, async (request, reply) => {
    const { sandboxId, requestId } = parseInput(requestParams, request.params, 'path');
    const raw = await requests.rawResponse(request.principal.workspaceId, sandboxId, requestId);
    return sendDownload(reply, raw, 'message/http', `${requestId}-response.http`);
  });

  app.get(`${base}/:requestId/files/:index`, async (request, reply) => {
    const { sandboxId, requestId, index } = parseInput(fileParams, request.params, 'path');
    const { info, content } = await requests.file(request.principal.workspaceId, sandboxId, requestId, index);
    return sendDownload(reply, content, info.contentType, info.fileName ?? `${requestId}-file-${index}`);
  });
}
