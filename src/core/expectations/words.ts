// An expectation's outcome in words: what held, or which condition failed, how, and on which item.
import type { Problem } from './judge.ts';
import type { Condition, ExpectedItem } from './items.ts';

const q = (v: unknown) => JSON.stringify(v);

function counts(c: Condition): string {
  if (c.exactly !== undefined) return `exactly ${c.exactly}`;
  if (c.atLeast !== undefined && c.atMost !== undefined) return `${c.atLeast} to ${c.atMost}`;
  if (c.atMost !== undefined) return `at most ${c.atMost}`;
  return `at least ${c.atLeast ?? 1}`;
}

/** `conditions[0] (messages with subjectContains "Welcome", exactly 1)`. */
export function describeCondition(c: Condition, index: number): string {
  const filters = Object.entries(c.filter)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} ${q(v)}`);
  const what = filters.length === 0 ? c.stream : `${c.stream} with ${filters.join(' and ')}`;
  return `conditions[${index}] (${what}, ${counts(c)})`;
}

/** `message <id> "Welcome" from a@b.test received 2026-…` or `request <id> POST /webhooks received 2026-…`. */
export function describeItem(item: ExpectedItem): string {
  const at = item.receivedAt.toISOString();
  return item.stream === 'messages'
    ? `message ${item.id} ${q(item.subject ?? '(no subject)')} from ${item.from} received ${at}`
    : `request ${item.id} ${item.method} ${item.path} received ${at}`;
}

export interface Failure {
  condition: number;
  problem: Problem;
  item: ExpectedItem | undefined;
  after?: number | undefined;
}

/** One or two sentences for the result's `summary`. */
export function summarize(
  conditions: readonly Condition[],
  countsSeen: readonly number[],
  failure: Failure | undefined,
  o: { withinSeconds: number; quietForSeconds: number; inOrder: boolean },
): string {
  const c = (i: number) => describeCondition(conditions[i] as Condition, i);
  if (failure === undefined) {
    const each = conditions.map((_, i) => `${c(i)} matched ${countsSeen[i] ?? 0}`).join('; ');
    const order = o.inOrder && conditions.length > 1 ? ', in order' : '';
    const quiet = o.quietForSeconds > 0 ? `, and nothing more matched for ${o.quietForSeconds} s` : '';
    return `Pass: ${each}${order}${quiet}.`;
  }
  const item = failure.item === undefined ? '' : describeItem(failure.item);
  switch (failure.problem) {
    case 'too_few':
      return `Fail: ${c(failure.condition)} matched only ${countsSeen[failure.condition] ?? 0} within ${o.withinSeconds} s; closest lists what came nearest.`;
    case 'too_many':
      return `Fail: ${c(failure.condition)} matched one too many: ${item}.`;
    case 'out_of_order': {
      const after = failure.after ?? 0;
      const first = (countsSeen[after] ?? 0) > 0 ? 'the first match of' : 'any match of';
      return `Fail: out of order: ${c(failure.condition)} first matched ${item}, before ${first} ${c(after)}.`;
    }
    case 'not_quiet':
      return `Fail: every count was met, but matches kept coming: the last, ${item}, matched ${c(failure.condition)} less than ${o.quietForSeconds} s (the quiet period) before the end at withinSeconds + quietForSeconds.`;
    case 'interrupted':
      return 'Fail: the expectation was interrupted (the server is shutting down or the client went away); run it again.';
  }
}
