// The periodic work of a running server: sweeps (expired sandboxes, old captures, unused OAuth clients) with the
// embedded store's VACUUM/ANALYZE at each tick, and between ticks the check for tables that outgrew their
// statistics.
import type { Logger } from 'pino';
import type { Core } from '../core/core.ts';
import type { MaintenanceResult } from '../core/store/maintenance.ts';

/** How often a process checks for tables that outgrew their statistics (maintenance.ts, GROWN_SHARE). */
const GROWN_CHECK_MS = 2_000;

export interface Sweeps {
  /** Ends both timers and waits for a run in progress, so that the store is not closed under it. */
  stop(): Promise<void>;
}

/**
 * Sweeps and the store's maintenance every `intervalSeconds`, and the check for tables that outgrew their
 * statistics every `grownCheckMs` (GROWN_CHECK_MS); one maintenance at a time, whichever started it.
 */
export function startSweeps(
  core: Pick<Core, 'sweep' | 'maintainStore' | 'analyzeGrownTables'> & {
    oauth: Pick<Core['oauth'], 'sweepClients'>;
  },
  logger: Logger,
  options: { intervalSeconds: number; grownCheckMs?: number },
): Sweeps {
  let stopped = false;
  let sweeping: Promise<void> | undefined;
  let maintaining: Promise<void> | undefined;
  /** The client count last logged: a sweep that changed nothing logs at debug only. */
  let loggedClients: number | undefined;
  const maintain = async (run: () => Promise<MaintenanceResult>, done: string) => {
    try {
      const started = performance.now();
      const maintenance = await run();
      if (maintenance.analyzed.length + maintenance.vacuumed.length > 0) {
        logger.info({ maintenance, ms: Math.round(performance.now() - started) }, done);
      }
    } catch (err) {
      // VACUUM cannot run while another caller holds the embedded store's one connection in a transaction.
      logger.warn({ err }, 'store maintenance failed; it runs again at the next interval');
    }
  };
  const startMaintenance = (run: () => Promise<MaintenanceResult>, done: string) => {
    const running: Promise<void> = maintain(run, done).finally(() => {
      if (maintaining === running) maintaining = undefined;
    });
    maintaining = running;
    return running;
  };
  const sweep = async () => {
    try {
      const result = await core.sweep();
      if (result.expiredSandboxes + result.purgedMessages + result.purgedRequests > 0) {
        logger.info({ sweep: result }, 'sweep removed expired sandboxes and old captures');
      }
    } catch (err) {
      logger.warn({ err }, 'sweep failed; it runs again at the next interval');
    }
    try {
      // Anyone may register a client: how many there are and what they hold is logged as it changes.
      const clients = await core.oauth.sweepClients();
      if (clients !== undefined) {
        const changed =
          clients.prunedNeverAuthorized + clients.prunedUnused > 0 || clients.clients !== loggedClients;
        logger[changed ? 'info' : 'debug']({ oauthClients: clients }, 'OAuth clients swept');
        loggedClients = clients.clients;
      }
    } catch (err) {
      logger.warn({ err }, 'OAuth client sweep failed; it runs again at the next interval');
    }
    // A grown check in progress finishes first; a stop meanwhile leaves the maintenance for the next start.
    await maintaining;
    if (!stopped)
      await startMaintenance(
        core.maintainStore,
        'embedded store vacuumed and analyzed the tables that changed',
      );
  };
  const sweepTick = () => {
    if (sweeping !== undefined) return;
    const run: Promise<void> = sweep().finally(() => {
      if (sweeping === run) sweeping = undefined;
    });
    sweeping = run;
  };
  const grownCheck = () => {
    if (sweeping === undefined && maintaining === undefined)
      void startMaintenance(core.analyzeGrownTables, 'analyzed the tables that outgrew their statistics');
  };
  sweepTick();
  const sweepTimer = setInterval(sweepTick, options.intervalSeconds * 1000);
  sweepTimer.unref();
  const grownTimer = setInterval(grownCheck, options.grownCheckMs ?? GROWN_CHECK_MS);
  grownTimer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(sweepTimer);
      clearInterval(grownTimer);
      await Promise.allSettled([sweeping, maintaining]);
    },
  };
}
