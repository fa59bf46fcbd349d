// The composition of core: one object built from the store, config and clock, handed to every adapter.
import { createApiKeyService } from './apiKeys.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { createCaptureService } from './http/capture.ts';
import { createMailIngest } from './mail/ingest.ts';
import { createSmtpAccess } from './mail/smtpAccess.ts';
import { createMessageService } from './messages.ts';
import { createRateLimits } from './rateLimits.ts';
import { createRequestService } from './requests.ts';
import { createSandboxService } from './sandboxes.ts';
import type { Store } from './store/openStore.ts';
import { createWorkspaceService } from './workspaces.ts';

export interface CoreDeps {
  store: Store;
  config: Readonly<Config>;
  clock?: Clock;
}

export function createCore({ store, config, clock = systemClock }: CoreDeps) {
  const { db } = store;
  const limits = createRateLimits(config);
  return {
    config,
    clock,
    storeKind: store.kind,
    workspaces: createWorkspaceService(db, clock),
    apiKeys: createApiKeyService(db, clock),
    sandboxes: createSandboxService(db, clock, config),
    messages: createMessageService(db, clock),
    ingestMail: createMailIngest(db, clock),
    smtpAccess: createSmtpAccess(db, clock, config.captureDomain),
    limits,
    capture: createCaptureService(db, clock, limits),
    requests: createRequestService(db, clock),
  };
}

export type Core = ReturnType<typeof createCore>;
