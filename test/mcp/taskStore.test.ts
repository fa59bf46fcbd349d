// The in-memory store behind the MCP Tasks extension, on a hand-moved clock: a task is its owner's alone, ends
// once (cancel and late results do not overwrite each other), is gone after its TTL, and the bounds make room
// by dropping the oldest finished task, never a running one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TaskStore } from '../../src/mcp/tasks/store.ts';

function clockedStore(options: { maxPerOwner?: number; maxTotal?: number } = {}) {
  let now = Date.parse('2026-07-28T10:00:00Z');
  const store = new TaskStore({ ttlMs: 60_000, pollIntervalMs: 1_000, now: () => now, ...options });
  return { store, advance: (ms: number) => (now += ms) };
}

function created(store: TaskStore, owner: string) {
  const made = store.create(owner, 'Running.');
  assert.ok(made !== undefined, 'the task was created');
  return made;
}

describe('MCP task store', () => {
  it('shows a task only to its owner, with the DetailedTask fields', () => {
    const { store, advance } = clockedStore();
    const { view } = created(store, 'ws-a');
    assert.equal(view.status, 'working');
    assert.equal(view.createdAt, '2026-07-28T10:00:00.000Z');
    assert.equal(view.ttlMs, 60_000);
    assert.equal(view.pollIntervalMs, 1_000);
    assert.equal(store.get('ws-b', view.taskId), undefined);
    assert.equal(store.cancel('ws-b', view.taskId), false);
    advance(5_000);
    store.note(view.taskId, 'Waiting: 5 s of 30 s');
    const seen = store.get('ws-a', view.taskId);
    assert.equal(seen?.statusMessage, 'Waiting: 5 s of 30 s');
    assert.equal(seen?.lastUpdatedAt, '2026-07-28T10:00:05.000Z');
  });

  it('completes once: a cancelled task ignores its late result, a finished one ignores cancel', () => {
    const { store } = clockedStore();
    const first = created(store, 'ws');
    assert.equal(store.cancel('ws', first.view.taskId), true);
    assert.equal(first.signal.aborted, true, 'cancel aborts the work');
    store.complete(first.view.taskId, { content: [] }, 'done');
    assert.equal(store.get('ws', first.view.taskId)?.status, 'cancelled');
    assert.equal(store.get('ws', first.view.taskId)?.result, undefined);

    const second = created(store, 'ws');
    store.complete(second.view.taskId, { content: [], structuredContent: { ok: true } }, 'done');
    assert.equal(store.cancel('ws', second.view.taskId), true, 'cancel is acknowledged');
    const done = store.get('ws', second.view.taskId);
    assert.equal(done?.status, 'completed');
    assert.deepEqual(done?.result, { content: [], structuredContent: { ok: true } });

    const third = created(store, 'ws');
    store.fail(third.view.taskId, { code: -32603, message: 'boom' });
    assert.deepEqual(store.get('ws', third.view.taskId)?.error, { code: -32603, message: 'boom' });
  });

  it('forgets a task once its TTL from creation has passed, aborting work still running', () => {
    const { store, advance } = clockedStore();
    const { view, signal } = created(store, 'ws');
    advance(59_999);
    assert.equal(store.get('ws', view.taskId)?.status, 'working');
    advance(1);
    assert.equal(store.get('ws', view.taskId), undefined);
    assert.equal(signal.aborted, true);
    assert.equal(store.has('ws', view.taskId), false);
  });

  it("makes room by dropping the owner's oldest finished task, and refuses when all are running", () => {
    const { store } = clockedStore({ maxPerOwner: 2, maxTotal: 10 });
    const a = created(store, 'ws');
    const b = created(store, 'ws');
    assert.equal(store.create('ws', 'Running.'), undefined, 'both still running: no room');
    created(store, 'other'); // another owner's bound is its own
    store.complete(b.view.taskId, { content: [] }, 'done');
    const c = created(store, 'ws');
    assert.equal(store.get('ws', b.view.taskId), undefined, 'the finished task made room');
    assert.equal(store.get('ws', a.view.taskId)?.status, 'working', 'the running one stays');
    assert.equal(store.get('ws', c.view.taskId)?.status, 'working');
  });

  it('bounds the process too, dropping the oldest finished task of anyone', () => {
    const { store } = clockedStore({ maxPerOwner: 10, maxTotal: 2 });
    const a = created(store, 'ws-a');
    created(store, 'ws-b');
    assert.equal(store.create('ws-c', 'Running.'), undefined);
    store.complete(a.view.taskId, { content: [] }, 'done');
    created(store, 'ws-c');
    assert.equal(store.get('ws-a', a.view.taskId), undefined);
  });

  it('aborts the work of every task on close', () => {
    const { store } = clockedStore();
    const a = created(store, 'ws');
    const b = created(store, 'other');
    store.close();
    assert.equal(a.signal.aborted, true);
    assert.equal(b.signal.aborted, true);
  });
});
