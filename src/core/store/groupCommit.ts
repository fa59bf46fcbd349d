// Group commit: writes that arrive while a batch is being committed are committed together in the next
// batch, and each caller is answered only when its own batch has committed. No timer is involved: an idle
// writer starts a batch at once, so a lone write pays no extra latency; batches only grow under load.

export interface GroupCommitOptions<I> {
  /** Most items in one batch (bounded by the statement's parameter count). */
  maxItems: number;
  /** Most bytes in one batch by `sizeOf`; a single larger item still goes, alone. */
  maxBytes: number;
  sizeOf(item: I): number;
  /** Batches committed at once: 1 on the embedded store (one connection), a few on PostgreSQL. */
  concurrency: number;
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
  private readonly write: (items: I[]) => Promise<O[]>;
  private readonly options: GroupCommitOptions<I>;

  /** `write` commits every item in one transaction and returns one result per item, in order. */
  constructor(write: (items: I[]) => Promise<O[]>, options: GroupCommitOptions<I>) {
    this.write = write;
    this.options = options;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, size: this.options.sizeOf(item), resolve, reject });
      // Items submitted while this turn of the event loop handles its ready I/O join one batch: the embedded
      // store runs a statement synchronously, so a batch started at once would always hold just one item.
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  /** Items waiting for a batch plus batches being committed. */
  pending(): number {
    return this.queue.length + this.inFlight;
  }

  private pump(): void {
    while (this.inFlight < this.options.concurrency && this.queue.length > 0) {
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
      if (batch.length === 1) return (batch[0] as Pending<I, O>).reject(err);
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
