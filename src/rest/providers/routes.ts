// Provider-API capture on the API listener: each provider's send API under /providers/<name>, so an app's SDK
// pointed there by its base-URL setting sends into the sandbox its key selects (README "Mail sent through
// provider APIs").
import type { FastifyInstance } from 'fastify';
import type { Core } from '../../core/core.ts';
import { mailgunRoutes } from './mailgun.ts';
import { postmarkRoutes } from './postmark.ts';
import { resendRoutes } from './resend.ts';
import { sendgridRoutes } from './sendgrid.ts';
import { sesRoutes } from './ses.ts';

export const PROVIDER_ROUTES = {
  sendgrid: sendgridRoutes,
  postmark: postmarkRoutes,
  resend: resendRoutes,
  mailgun: mailgunRoutes,
  ses: sesRoutes,
} as const;

export async function providerRoutes(scope: FastifyInstance, core: Core): Promise<void> {
  for (const [name, routes] of Object.entries(PROVIDER_ROUTES))
    await scope.register(async (provider) => routes(provider, core), { prefix: `/providers/${name}` });
}
