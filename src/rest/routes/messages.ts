// The email stream of a sandbox: list, detail, read flag, delete, clear, raw source, attachments and cid parts.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Core } from '../../core/core.ts';
import { attachmentIndex, updateMessageInput, uuid } from '../../core/schemas.ts';
import { parseInput } from '../../core/validation.ts';
import { sendDownload } from '../download.ts';
import { messageDetailDto, messageSummaryDto, pageDto } from '../mappers.ts';

const sandboxParams = z.object({ sandboxId: uuid });
const messageParams = sandboxParams.extend({ messageId: uuid });
const attachmentParams = messageParams.extend({ index: attachmentIndex });
// RFC 5322 caps a line at 998 characters; no Content-ID is longer.
const partParams = messageParams.extend({ contentId: z.string().min(1).max(998) });

export function messageRoutes(app: FastifyInstance, core: Core): void {
  const messages = core.messages;
  const base = '/sandboxes/:sandboxId/messages';

  app.get(base, async (request) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    return pageDto(
      await messages.list(request.principal.workspaceId, sandboxId, request.query as Record<string, unknown>),
      messageSummaryDto,
    );
  });

  app.delete(base, async (request, reply) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    await messages.clear(request.principal.workspaceId, sandboxId);
    return reply.code(204).send();
  });

  // Bulk marks and deletes (the dashboard's multi-select, mark all read, and a clear up to what was seen).
  app.post(`${base}/read`, async (request) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    return core.streamActions.markRead(request.principal.workspaceId, sandboxId, 'messages', request.body);
  });

  app.post(`${base}/delete`, async (request) => {
    const { sandboxId } = parseInput(sandboxParams, request.params, 'path');
    return core.streamActions.deleteMany(request.principal.workspaceId, sandboxId, 'messages', request.body);
  });

  app.get(`${base}/:messageId`, async (request) => {
    const { sandboxId, messageId } = parseInput(messageParams, request.params, 'path');
    return messageDetailDto(await messages.get(request.principal.workspaceId, sandboxId, messageId));
  });

  app.patch(`${base}/:messageId`, async (request, reply) => {
    const { sandboxId, messageId } = parseInput(messageParams, request.params, 'path');
    const { isRead } = parseInput(updateMessageInput, request.body, 'request body');
    await messages.setRead(request.principal.workspaceId, sandboxId, messageId, isRead);
    return reply.code(204).send();
  });

  app.delete(`${base}/:messageId`, async (request, reply) => {
    const { sandboxId, messageId } = parseInput(messageParams, request.params, 'path');
    await messages.delete(request.principal.workspaceId, sandboxId, messageId);
    return reply.code(204).send();
  });

  app.get(`${base}/:messageId/raw`, async (request, reply) => {
    const { sandboxId, messageId } = parseInput(messageParams, request.params, 'path');
    const raw = await messages.raw(request.principal.workspaceId, sandboxId, messageId);
    return sendDownload(reply, raw, 'message/rfc822', `${messageId}.eml`);
  });

  app.get(`${base}/:messageId/attachments/:index`, async (request, reply) => {
    const { sandboxId, messageId, index } = parseInput(attachmentParams, request.params, 'path');
    const { info, content } = await messages.attachment(
      request.principal.workspaceId,
      sandboxId,
      messageId,
      index,
    );
    return sendDownload(reply, content, info.contentType, info.fileName);
  });

  // The target of the `cid:` URLs the /html view rewrites; served with the very headers of a download.
  app.get(`${base}/:messageId/parts/:contentId`, async (request, reply) => {
    const { sandboxId, messageId, contentId } = parseInput(partParams, request.params, 'path');
    const { info, content } = await messages.partByContentId(
      request.principal.workspaceId,
      sandboxId,
      messageId,
      contentId,
    );
    return sendDownload(reply, content, info.contentType, info.fileName);
  });
}
