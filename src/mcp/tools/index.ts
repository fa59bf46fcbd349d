// The tool table: every MCP tool, in the order clients list them.
import type { ToolDefinition } from '../toolkit.ts';
import { createSandbox } from './createSandbox.ts';
import { deleteSandbox } from './deleteSandbox.ts';
import { extractFromBody } from './extractFromBody.ts';
import { expect } from './expect.ts';
import { extractOtp } from './extractOtp.ts';
import { getEmail } from './getEmail.ts';
import { getRequest } from './getRequest.ts';
import { getSandbox } from './getSandbox.ts';
import { listEmails } from './listEmails.ts';
import { listRequests } from './listRequests.ts';
import { listSandboxes } from './listSandboxes.ts';
import { mockState } from './mockState.ts';
import { setMockRules } from './setMockRules.ts';
import { setSmtpFaults } from './setSmtpFaults.ts';
import { listSmtpSessions } from './listSmtpSessions.ts';
import { verifySignature } from './verifySignature.ts';
import { waitForCallback } from './waitForCallback.ts';
import { waitForEmail } from './waitForEmail.ts';
import { waitForRequest } from './waitForRequest.ts';

export const tools: ToolDefinition[] = [
  createSandbox,
  waitForEmail,
  waitForRequest,
  expect,
  extractOtp,
  extractFromBody,
  listSandboxes,
  getSandbox,
  deleteSandbox,
  setMockRules,
  mockState,
  waitForCallback,
  listEmails,
  getEmail,
  listRequests,
  getRequest,
  verifySignature,
  setSmtpFaults,
  listSmtpSessions,
];
