// Whether an expectation's conditions hold over the items matched so far: pure, so the service only feeds it.
// A count over its maximum, or a first match out of order, can never be undone: the expectation has failed.

/** An item as a condition counts it: list order is (receivedAt, id). */
export interface Counted {
  id: string;
  receivedAt: Date;
}

export interface Bounds {
  min: number;
  /** undefined: no maximum. */
  max: number | undefined;
}

export type Problem = 'too_few' | 'too_many' | 'out_of_order' | 'not_quiet' | 'interrupted';

export type Verdict<I extends Counted> =
  | { state: 'pending' }
  | { state: 'met' }
  | {
      state: 'broken';
      condition: number;
      problem: 'too_many' | 'out_of_order';
      item: I;
      /** With out_of_order: the earlier condition whose first match had to come first. */
      after?: number;
    };

/** The bounds a condition's counts say: `exactly`, or `atLeast`/`atMost`, or at least one when none is given. */
export function boundsOf(c: {
  exactly?: number | undefined;
  atLeast?: number | undefined;
  atMost?: number | undefined;
}): Bounds {
  if (c.exactly !== undefined) return { min: c.exactly, max: c.exactly };
  if (c.atLeast === undefined && c.atMost === undefined) return { min: 1, max: undefined };
  return { min: c.atLeast ?? 0, max: c.atMost };
}

export const byArrival = (a: Counted, b: Counted): number =>
  a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * `matched[i]` holds condition i's items in arrival order and `counts[i]` how many there are (the list may be
 * cut short). In order means each condition's first match arrived no earlier than the first match of every
 * condition before it; a condition without a match is skipped, unless it needs one: then a later condition's
 * first match has already come too early. Equal instants count as in order.
 */
export function judge<I extends Counted>(
  bounds: readonly Bounds[],
  matched: ReadonlyArray<readonly I[]>,
  counts: readonly number[],
  inOrder: boolean,
): Verdict<I> {
  for (let i = 0; i < bounds.length; i++) {
    const max = bounds[i]?.max;
    const over = matched[i]?.[max ?? Infinity];
    if (max !== undefined && (counts[i] ?? 0) > max && over !== undefined) {
      return { state: 'broken', condition: i, problem: 'too_many', item: over };
    }
  }
  if (inOrder) {
    for (let j = 1; j < bounds.length; j++) {
      const later = matched[j]?.[0];
      if (later === undefined) continue;
      for (let i = 0; i < j; i++) {
        const earlier = matched[i]?.[0];
        const tooEarly =
          earlier === undefined
            ? (bounds[i]?.min ?? 0) >= 1
            : later.receivedAt.getTime() < earlier.receivedAt.getTime();
        if (tooEarly)
          return { state: 'broken', condition: j, problem: 'out_of_order', item: later, after: i };
      }
    }
  }
  return bounds.some((b, i) => (counts[i] ?? 0) < b.min) ? { state: 'pending' } : { state: 'met' };
}
