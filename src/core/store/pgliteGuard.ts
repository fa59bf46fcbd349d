// A PGlite that is never entered again once postgres PANICked inside it: such an instance spins for ever in its
// next commit, and it runs on this thread.
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

/**
 * Thrown, without entering postgres, by every call into an instance that was lost (see `GuardedPGlite.lose`):
 * PGlite's own follow-up calls (the ROLLBACK after a failed transaction) included.
 */
export class LostInstanceError extends Error {
  override name = 'LostInstanceError';
}

/**
 * On a PANIC postgres calls abort(); PGlite catches the WebAssembly exception that follows and carries on. The
 * PANIC's own error still reaches the caller, but postgres' shared state is left as the PANIC found it: under
 * load, a WAL segment that could not be created for lack of space left the WAL write lock taken, and the next
 * commit's XLogFlush waited for it in a loop that never yields (the process answered nothing, /healthz included,
 * until kill -9). A real postmaster would end the backend and recover from the WAL; here the store starts a new
 * instance on the same files (embeddedDatabase.ts), and this one refuses every call from the moment it is lost.
 * Every call into postgres goes through `execProtocolRawSync`, PGlite's own included.
 */
export class GuardedPGlite extends PGlite {
  #lost: LostInstanceError | undefined;

  constructor(options: PGliteOptions) {
    super(options);
  }

  /** From now on every call fails with `reason` (the first reason given is kept). */
  lose(reason: string): void {
    this.#lost ??= new LostInstanceError(reason);
  }

  get lost(): boolean {
    return this.#lost !== undefined;
  }

  override execProtocolRawSync(message: Uint8Array): Uint8Array {
    if (this.#lost !== undefined) throw this.#lost;
    return super.execProtocolRawSync(message);
  }
}
