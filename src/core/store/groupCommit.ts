// Group commit: writes that arrive while a batch is being committed are committed together in the next
// batch, and each caller is answered only when its own batch has committed. An idle writer starts a batch at
// once, so a lone write pays no extra latency; batches only grow under load. Callers may announce a write that
// is still being prepared (a message being parsed): a batch then waits for those, up to `announcedWaitMs`.
// Why it exists and when it goes: the store map, src/core/store/README.md.

export interface GroupCommitOptions<I> {
  /** Most items in one batch (bounded by the statement's parameter count). */
  maxItems: number;
  /** Most bytes in one batch by `sizeOf`; a single larger item still goes, alone. */
  maxBytes: number;
  sizeOf(item: I): number;
  /** Batches committed at once: 1 on the embedded store (one connection), a few on PostgreSQL. */
  concurrency: number;
  /** Longest a batch waits for announced items (see `announce`); 0: batches never wait. */
  announcedWaitMs?: number;
  /**
   * Whether a batch's failure is the store's rather than one item's (the store refuses every write: its disk is
   * full, it is unreachable). Such a batch fails as a whole: retrying each item alone would only fail each again.
   */
  failsEveryItem?(err: unknown): boolean;
}

interface Pending<I, O> {
  item: I;
  size: number;
  resolve(value: O): void;
  reject(err: unknown): void;
}

export class GroupCommit<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private inFlight = 0;
  private scheduled = false;
  /** Items announced and not submitted (or withdrawn) yet. */
  private announced = 0;
  /** Set while a batch waits for announced items: the timer that ends the wait. */
  private waitTimer: NodeJS.Timeout | undefined;
  private waitOver = false;
  private readonly write: (items: I[]) => Promise<O[]>;
  private readonly options: GroupCommitOptions<I>;

  /** `write` commits every item in one transaction and returns one result per item, in order. */
  constructor(write: (items: I[]) => Promise<O[]>, options: GroupCommitOptions<I>) {
    this.write = write;
    this.options = options;
  }

  /**
   * Announces an item that will be submitted soon. Until it is submitted or the returned function withdraws it, a
   * batch that could still take it waits (at most `announcedWaitMs`), so that concurrent arrivals share one
   * commit instead of each paying for its own statement.
   */
  announce(): { submit(item: I): Promise<O>; withdraw(): void } {
    this.announced++;
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      this.announced--;
      return true;
    };
    return {
      submit: (item) => {
        close();
        return this.submit(item);
      },
      withdraw: () => {
        if (close()) this.schedulePump();
      },
    };
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, size: this.options.sizeOf(item), resolve, reject });
      this.schedulePump();
    });
  }

  /**
   * Items submitted while this turn of the event loop handles its ready I/O join one batch: the embedded store
   * runs a statement synchronously, so a batch started at once would always hold just one item.
   */
  private schedulePump(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /** Whether the next batch should wait for announced items rather than start now. */
  private waitForAnnounced(): boolean {
    const waitMs = this.options.announcedWaitMs ?? 0;
    if (waitMs <= 0 || this.announced === 0 || this.queue.length >= this.options.maxItems) return false;
    if (this.waitOver) return false;
    this.waitTimer ??= setTimeout(() => {
      this.waitOver = true;
      this.pump();
    }, waitMs);
    return true;
  }

  /** Items waiting for a batch plus batches being committed. */
  pending(): number {
    return this.queue.length + this.inFlight;
  }

  private pump(): void {
    while (this.inFlight < this.options.concurrency && this.queue.length > 0) {
      if (this.waitForAnnounced()) return;
      clearTimeout(this.waitTimer);
      this.waitTimer = undefined;
      this.waitOver = false;
      const batch = this.take();
      this.inFlight++;
      void this.commit(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private take(): Array<Pending<I, O>> {
    let bytes = 0;
    let n = 0;
    while (n < this.queue.length && n < this.options.maxItems) {
      const size = (this.queue[n] as Pending<I, O>).size;
      if (n > 0 && bytes + size > this.options.maxBytes) break;
      bytes += size;
      n++;
    }
    return this.queue.splice(0, n);
  }

  private async commit(batch: Array<Pending<I, O>>): Promise<void> {
    try {
      const results = await this.write(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i] as O));
    } catch (err) {
      if (batch.length === 1 || this.options.failsEveryItem?.(err) === true) {
        for (const p of batch) p.reject(err);
        return;
      }
      // One bad item must not fail the writes it happened to share a batch with: each is retried alone.
      for (const p of batch) {
        try {
          const [result] = await this.write([p.item]);
          p.resolve(result as O);
        } catch (single) {
          p.reject(single);
        }
      }
    }
  }
}
