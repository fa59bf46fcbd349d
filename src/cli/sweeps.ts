// The periodic work of a running server: sweeps (expired sandboxes, old captures, unused OAuth clients) with the
// store's maintenance at each tick, and between ticks, every 2 s, the embedded store's maintenance again and the
// check for tables that outgrew their statistics.
import type { Logger } from 'pino';
import type { Core } from '../core/core.ts';
import type { MaintenanceOptions, MaintenanceResult, MaintenanceStep } from '../core/store/maintenance.ts';

/**
 * How often a process maintains its store between sweep ticks. On the embedded store each run does what changed
 * since the last one, so that no statement of it holds the process long (maintenance.ts): at 300 captures a
 * second, 600 rows' worth; and a table that outgrew its statistics (GROWN_SHARE) is analyzed within seconds.
 */
const GROWN_CHECK_MS = 2_000;

export interface Sweeps {
  /** Ends both timers and waits for a run in progress, so that the store is not closed under it. */
  stop(): Promise<void>;
}

type Maintenance = (options: MaintenanceOptions) => Promise<MaintenanceResult>;

const FULL_DONE = 'embedded store vacuumed and analyzed the tables that changed';
const GROWN_DONE = 'analyzed the tables that outgrew their statistics';

/**
 * Sweeps and the store's maintenance every `intervalSeconds`, and the maintenance with the check for tables
 * that outgrew their statistics every `grownCheckMs` (GROWN_CHECK_MS); one maintenance at a time, whichever
 * started it.
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
  const maintain = async (run: Maintenance, done: string) => {
    try {
      const started = performance.now();
      let steps = 0;
      let longest: MaintenanceStep | undefined;
      const maintenance = await run({
        onStep: (step) => {
          steps++;
          if (longest === undefined || step.ms > longest.ms) longest = step;
        },
      });
      if (maintenance.analyzed.length + maintenance.vacuumed.length > 0) {
        // `ms` is the whole run; the process was held at most `longestStepMs` at once (the event loop runs
        // between steps).
        const { action, table, index } = longest ?? { action: undefined };
        logger.info(
          {
            maintenance,
            ms: Math.round(performance.now() - started),
            steps,
            longestStepMs: Math.round(longest?.ms ?? 0),
            longestStepCpuMs: Math.round(longest?.cpuMs ?? 0),
            longestStep: [action, table, index].filter((part) => part !== undefined).join(' '),
          },
          done,
        );
      }
    } catch (err) {
      // VACUUM cannot run while another caller holds the embedded store's one connection in a transaction.
      logger.warn({ err }, 'store maintenance failed; it runs again at the next interval');
    }
  };
  const startMaintenance = (work: () => Promise<void>) => {
    const running: Promise<void> = work().finally(() => {
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
    // A check in progress finishes first; a stop meanwhile leaves the maintenance for the next start.
    await maintaining;
    if (!stopped) await startMaintenance(() => maintain(core.maintainStore, FULL_DONE));
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
      void startMaintenance(async () => {
        await maintain(core.maintainStore, FULL_DONE);
        if (!stopped) await maintain(core.analyzeGrownTables, GROWN_DONE);
      });
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
