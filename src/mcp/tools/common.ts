// Parameter schemas shared by several tools: core's field schemas (so the same values are refused as over
// REST), with descriptions written for the agent that fills them in.
import { z } from 'zod';
import { pageQuery, textMax, uuid } from '../../core/schemas.ts';

export const sandboxId = uuid.describe('From create_sandbox.');

export const after = textMax(200)
  .optional()
  .describe('Only items after this: the id of one you handled, or an ISO instant.');

export const limit = pageQuery.shape.limit.default(20).describe('Page size, 1..200 (default 20).');

export const hint = z.string().describe('What to do next.');
export const nextCursor = z
  .string()
  .nullable()
  .describe('Pass as cursor for the next page; null on the last.');
