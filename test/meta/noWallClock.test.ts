// No test asserts a wall-clock bound: a loaded machine fails "answered within N ms" while the feature works.
// This scans test/**/*.ts with the TypeScript parser for a comparison of a clock reading (performance.now(),
// Date.now(), hrtime, a clock's now()) or an elapsed-style value (a difference of readings, a variable named
// like ms, elapsed, latency, worst) inside an assertion, or inside an `if` that fails the test. Order between
// instants (`before <= createdAt`) is fine, and so are timings kept for a diagnostic. Poll deadlines live in
// one helper, eventually() in test/helpers/poll.ts, which is the only place allowed to compare them.
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import ts from 'typescript';

/** What an expression holds, as far as time goes. */
type Kind = 'instant' | 'deadline' | 'duration' | 'other';

/** Reading one of these is reading the wall clock. */
const CLOCK_CALLS = new Set([
  'Date.now',
  'performance.now',
  'process.hrtime',
  'process.hrtime.bigint',
  'hrtime.bigint',
]);
/** `<anything>clock.now()` and `<anything>Clock.now()`: the server's clock (a test clock follows wall time). */
const CLOCK_NOW = /(^|\.)(clock|Clock)\.now$/;
/** Names that hold an elapsed time by convention. */
const DURATION_NAME =
  /^(ms|elapsed|took|latency|duration|worst|lag|gap)$|^[a-z]\w*(Ms|MS|Millis|Elapsed|Latency|Duration)$/;
/** Poll deadlines are compared here and only here: a generous bound that ends a test whose event never came. */
const ALLOWED = [{ file: 'test/helpers/poll.ts', fn: 'eventually' }];

const RELATIONAL = new Set([
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
]);

const rank: Record<Kind, number> = { other: 0, instant: 1, deadline: 2, duration: 3 };
const strongest = (kinds: Kind[]): Kind => kinds.reduce((a, b) => (rank[b] > rank[a] ? b : a), 'other');

interface Finding {
  file: string;
  line: number;
  text: string;
}

/** Every wall-clock comparison in an assertion in `source` (named `file` in the findings). */
function findWallClockAssertions(file: string, source: string): Finding[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  // Kinds of the file's variables and of the functions it declares, by name (scopes flattened: a name that
  // ever holds a clock reading is treated as one), settled by repeating until nothing changes.
  const vars = new Map<string, Kind>();
  const fns = new Map<string, Kind>();
  const setKind = (map: Map<string, Kind>, name: string, kind: Kind): boolean => {
    const before = map.get(name) ?? 'other';
    const after = strongest([before, kind]);
    map.set(name, after);
    return after !== before;
  };

  const kindOf = (node: ts.Expression): Kind => {
    if (
      ts.isParenthesizedExpression(node) ||
      ts.isAsExpression(node) ||
      ts.isNonNullExpression(node) ||
      ts.isTypeAssertionExpression(node) ||
      ts.isSatisfiesExpression(node) ||
      ts.isAwaitExpression(node)
    )
      return kindOf(node.expression);
    if (ts.isIdentifier(node)) {
      if (DURATION_NAME.test(node.text)) return 'duration';
      return vars.get(node.text) ?? 'other';
    }
    if (ts.isPropertyAccessExpression(node)) {
      const text = node.getText(sf);
      if (text === 'performance.timeOrigin') return 'instant';
      if (DURATION_NAME.test(node.name.text)) return 'duration';
      return vars.get(text) ?? 'other';
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(sf);
      if (CLOCK_CALLS.has(callee) || CLOCK_NOW.test(callee)) return 'instant';
      if (ts.isPropertyAccessExpression(node.expression)) {
        const method = node.expression.name.text;
        // clock.now().getTime(), new Date().valueOf()
        if (method === 'getTime' || method === 'valueOf') return kindOf(node.expression.expression);
        if (/^Math\.(max|min|abs|round|floor|ceil|trunc)$/.test(callee))
          return strongest(node.arguments.map((a) => (ts.isSpreadElement(a) ? 'other' : kindOf(a))));
      }
      if (callee === 'Number' && node.arguments[0] !== undefined) return kindOf(node.arguments[0]);
      return fns.get(callee) ?? 'other';
    }
    if (ts.isNewExpression(node)) {
      const cls = node.expression.getText(sf);
      if (cls === 'Date' && (node.arguments === undefined || node.arguments.length === 0)) return 'instant';
      if (cls === 'Date' && node.arguments?.[0] !== undefined) return kindOf(node.arguments[0]);
      return 'other';
    }
    if (ts.isConditionalExpression(node)) return strongest([kindOf(node.whenTrue), kindOf(node.whenFalse)]);
    if (ts.isBinaryExpression(node)) {
      const left = kindOf(node.left);
      const right = kindOf(node.right);
      switch (node.operatorToken.kind) {
        case ts.SyntaxKind.MinusToken:
          // now - then, deadline - now, Date.parse(x) - now: a length of time.
          if (right === 'instant' || right === 'deadline') return 'duration';
          if (left === 'instant' || left === 'deadline') return 'deadline';
          return left === 'duration' || right === 'duration' ? 'duration' : 'other';
        case ts.SyntaxKind.PlusToken:
          // now + 5_000: a deadline; elapsed + 1: still elapsed.
          if (left === 'duration' || right === 'duration') return 'duration';
          return left === 'other' && right === 'other' ? 'other' : 'deadline';
        case ts.SyntaxKind.AsteriskToken:
        case ts.SyntaxKind.SlashToken:
          // Scaled: now / 1000 is still now; elapsed / 1000 still elapsed.
          return strongest([left, right]) === 'deadline' ? 'deadline' : strongest([left, right]);
        case ts.SyntaxKind.QuestionQuestionToken:
        case ts.SyntaxKind.BarBarToken:
          return strongest([left, right]);
        default:
          return 'other';
      }
    }
    return 'other';
  };

  /** A comparison that measures the clock against a bound: elapsed vs anything, or now vs a deadline. */
  const isWallClock = (node: ts.BinaryExpression): boolean => {
    const left = kindOf(node.left);
    const right = kindOf(node.right);
    if (left === 'duration' || right === 'duration') return true;
    return (left === 'instant' && right === 'deadline') || (left === 'deadline' && right === 'instant');
  };

  // Settle the kinds of names.
  for (let changed = true, rounds = 0; changed && rounds < 10; rounds++) {
    changed = false;
    const visit = (node: ts.Node) => {
      if (ts.isVariableDeclaration(node) && node.initializer !== undefined) {
        const init = node.initializer;
        if (ts.isIdentifier(node.name)) {
          if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) {
            const returned = returnedKind(init);
            if (returned !== 'other') changed = setKind(fns, node.name.text, returned) || changed;
          } else {
            const kind = kindOf(init);
            if (kind !== 'other') changed = setKind(vars, node.name.text, kind) || changed;
          }
        }
      } else if (
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        (ts.isIdentifier(node.left) || ts.isPropertyAccessExpression(node.left))
      ) {
        const kind = kindOf(node.right);
        if (kind !== 'other') changed = setKind(vars, node.left.getText(sf), kind) || changed;
      } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name)) {
        // { at: Date.now() - started }: later read as x.at
        const kind = kindOf(node.initializer);
        if (kind !== 'other') changed = setKind(vars, `.${node.name.text}`, kind) || changed;
      } else if (ts.isFunctionDeclaration(node) && node.name !== undefined) {
        const returned = returnedKind(node);
        if (returned !== 'other') changed = setKind(fns, node.name.text, returned) || changed;
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  function returnedKind(fn: ts.FunctionLikeDeclaration): Kind {
    if (fn.body === undefined) return 'other';
    if (!ts.isBlock(fn.body)) return kindOf(fn.body);
    const kinds: Kind[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isReturnStatement(node) && node.expression !== undefined) kinds.push(kindOf(node.expression));
      if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
    };
    ts.forEachChild(fn.body, visit);
    return strongest(kinds);
  }

  const isAssertCall = (node: ts.Node): node is ts.CallExpression => {
    if (!ts.isCallExpression(node)) return false;
    const callee = node.expression.getText(sf);
    return /^(\w+\.)?assert(\.\w+)?$/.test(callee);
  };
  /** An `if` whose branch fails the test: assert.fail, another assertion, or a throw. */
  const failsTest = (statement: ts.Statement): boolean => {
    let fails = false;
    const visit = (node: ts.Node) => {
      if (ts.isThrowStatement(node) || isAssertCall(node)) fails = true;
      if (!fails && !ts.isFunctionLike(node)) ts.forEachChild(node, visit);
    };
    visit(statement);
    return fails;
  };
  const allowedHere = (node: ts.Node): boolean => {
    for (let n: ts.Node | undefined = node; n !== undefined; n = n.parent) {
      if (ts.isFunctionDeclaration(n) && n.name !== undefined) {
        const name = n.name.text;
        if (ALLOWED.some((a) => file.endsWith(a.file) && a.fn === name)) return true;
      }
    }
    return false;
  };

  const findings: Finding[] = [];
  const report = (node: ts.Node) => {
    const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    findings.push({ file, line: line + 1, text: node.getText(sf).replace(/\s+/g, ' ').slice(0, 160) });
  };
  /** Reports the wall-clock comparisons under `root` (not inside functions defined there). */
  const scanComparisons = (root: ts.Node) => {
    const visit = (node: ts.Node) => {
      if (ts.isBinaryExpression(node) && RELATIONAL.has(node.operatorToken.kind) && isWallClock(node)) {
        if (!allowedHere(node)) report(node);
      }
      if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
    };
    visit(root);
  };
  const visit = (node: ts.Node) => {
    if (isAssertCall(node)) for (const arg of node.arguments) scanComparisons(arg);
    if (ts.isIfStatement(node) && failsTest(node.thenStatement)) scanComparisons(node.expression);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return findings;
}

/** Each shape of wall-clock assertion this suite once had (issue 34), as written then. */
const REMOVED_PATTERNS: string[] = [
  // test/rest/waits.test.ts: a timed() helper and inline stopwatches
  `async function timed(fn) { const t0 = performance.now(); const value = await fn(); return { value, ms: performance.now() - t0 }; }
   const { value: res, ms } = await timed(() => wait());
   assert.ok(ms < 2000, \`answered at once, took \${Math.round(ms)} ms\`);`,
  `const { ms } = await timed(() => wait()); assert.ok(ms >= 1000 && ms < 2000, 'took');`,
  `const t0 = performance.now(); await send(); assert.ok(performance.now() - t0 < 3000, 'woke on the arrival');`,
  `const t0 = performance.now(); await closed; assert.ok(performance.now() - t0 < 3000, \`took \${Math.round(performance.now() - t0)} ms\`);`,
  // test/core/matcher.test.ts
  `function timed(label, limitMs, fn) { const start = performance.now(); const result = fn();
     const elapsed = performance.now() - start; assert.ok(elapsed < limitMs, label); return result; }`,
  // test/core/extract.test.ts
  `const timed = (fn) => { const start = performance.now(); fn(); return performance.now() - start; };
   const ms = timed(() => extractOtp(body)); assert.ok(ms < 1000, \`took \${ms} ms\`);`,
  // test/core/clientMetadataFetch.test.ts
  `const started = Date.now(); await fetchIt(); assert.ok(Date.now() - started < 4_000, 'refused at the size limit');`,
  `const started = Date.now(); await fetchIt(); const elapsed = Date.now() - started;
   assert.ok(elapsed >= 550 && elapsed < 2_000, \`took \${elapsed} ms\`);`,
  // test/mcp/http.test.ts
  `const started = Date.now(); const result = await pending;
   assert.ok(Date.now() - started < 9_000, 'answered on arrival, not at the timeout');`,
  `const progress = []; const started = Date.now();
   await call({ onprogress: (p) => progress.push({ ...p, at: Date.now() - started }) });
   const finished = Date.now() - started; for (const p of progress) assert.ok(p.at < finished, 'before the result');`,
  `const before = Date.now(); const sb = await create(); const created = Date.parse(sb.created_at);
   assert.ok(Math.abs(created - before) < 60_000, 'created_at is now');`,
  // test/mcp/waits.test.ts
  `const started = Date.now(); await fails(); assert.ok(Date.now() - started < 5_000, 'answered at once');`,
  // test/rest/rateLimit.test.ts
  `const t0 = performance.now(); await wait(); assert.ok(performance.now() - t0 >= 1000, 'the wait blocked');`,
  // test/rest/eventsDurable.test.ts
  `const t0 = Date.now(); await server.close(); assert.ok(Date.now() - t0 < 1_500, 'did not wait');`,
  // test/rest/eventsMultiProcess.test.ts and test/cli/multiProcess.test.ts
  `const MAX_WAKE_MS = 2_000; const t0 = performance.now(); await next();
   assert.ok(performance.now() - t0 < MAX_WAKE_MS);`,
  `async function call() { const res = await fetch(u); const at = performance.now(); return { res, at }; }
   const acceptedAt = performance.now(); const { res, at } = await wait;
   const latency = Math.max(0, at - acceptedAt); assert.ok(latency < MAX_WAKE_MS, 'A answered');`,
  `const goneAt = performance.now(); const { res, at } = await w; assert.ok(at - goneAt < MAX_WAKE_MS, 'ended');`,
  // test/cli/serve.test.ts
  `const started = Date.now(); const code = await second.waitExit(15_000);
   assert.ok(Date.now() - started < 10_000, \`took \${Date.now() - started} ms\`);`,
  // test/rest/slowClients.test.ts
  `const startedAt = Date.now(); let closedAt; socket.on('close', () => { closedAt = Date.now(); });
   const lastClosed = Math.max(...uploads.map((u) => u.closedAt ?? 0)) - startedAt;
   assert.ok(lastClosed <= (TIMEOUT_SECONDS + 5) * 1000, 'the last socket closed');`,
  `const started = Date.now(); await closed;
   assert.ok(Date.now() - started < (TIMEOUT_SECONDS + 3) * 1000, \`closed after \${Date.now() - started} ms\`);`,
  // test/faults/postgresOutage.test.ts
  `let waitSettledAt; const waitStarted = Date.now(); wait.finally(() => (waitSettledAt = Date.now()));
   const sentAt = Date.now(); await send();
   assert.ok((waitSettledAt ?? Infinity) - sentAt < 8_000, 'took');
   assert.ok(Date.now() - waitStarted > 3_000);`,
  // test/core/groupCommit.test.ts
  `const started = performance.now(); await gc.submit('b');
   assert.ok(performance.now() - started >= 25, 'the batch waited');`,
  // test/capture/captureFuzz.test.ts and hostileCapture.test.ts (probes timed on another thread)
  `const HEALTHZ_BOUND_MS = 100; const worst = probes.reduce((w, p) => Math.max(w, p.end - p.start), 0);
   assert.ok(worst < HEALTHZ_BOUND_MS, 'answered within 100 ms');`,
  // test/rest/events.test.ts, eventsDurable, session, dashboard: poll deadlines written inline
  `const deadline = Date.now() + 2_000; for (;;) { if (await free()) break; assert.ok(Date.now() < deadline, 'a slot frees up'); }`,
  `const deadline = Date.now() + 3_000; while (open() < n) { if (Date.now() > deadline) assert.fail('did not open'); await tick(); }`,
  `async function read(deadline) { const left = deadline - Date.now(); if (left <= 0) throw new Error('timed out'); }`,
  // test/rest/oauthFlow.test.ts, oauthEndpoints, session: "about now" by a tolerance
  `const expiresIn = Date.parse(shown.expiresAt) - Date.now(); assert.ok(expiresIn > 500_000 && expiresIn <= 600_000);`,
  `assert.ok(Math.abs(body.client_id_issued_at * 1000 - Date.now()) < 60_000);`,
  `const expires = Date.parse(body.expiresAt) - server.clock.now().getTime(); assert.ok(Math.abs(expires - TTL) < 60_000);`,
  `const hoursLeft = (cookie.expires * 1000 - Date.now()) / 3_600_000; assert.ok(hoursLeft > 11.9 && hoursLeft <= 12.01);`,
];

/** Order and outcome, which stay allowed. */
const ALLOWED_PATTERNS: string[] = [
  `const before = server.clock.now().getTime(); const sb = await create(); const after = server.clock.now().getTime();
   const created = Date.parse(sb.created_at); assert.ok(before <= created && created <= after, 'during the call');`,
  `const before = Date.now() / 1000; await signIn(); const after = Date.now() / 1000;
   assert.ok(before + ttl - 1 <= cookie.expires && cookie.expires <= after + ttl + 1);`,
  `const seconds = Number(res.headers.get('retry-after')); assert.ok(seconds >= 1 && seconds <= 60);`,
  `assert.ok(reads() <= n, 'each segment read at most once');`,
  `const started = performance.now(); await run(); t.diagnostic(\`took \${performance.now() - started} ms\`);`,
  `assert.equal(referenceEnded, false, 'before the first re-check'); assert.equal(await reference, 204);`,
];

describe('no wall-clock assertions in the tests', () => {
  it('finds every shape of wall-clock assertion the suite once had', () => {
    const missed = REMOVED_PATTERNS.filter(
      (code, i) => findWallClockAssertions(`fixture-${i}.ts`, code).length === 0,
    );
    assert.deepEqual(missed, [], 'these patterns were not found');
  });

  it('leaves order, outcome and diagnostics alone', () => {
    const flagged = ALLOWED_PATTERNS.flatMap((code, i) => findWallClockAssertions(`allowed-${i}.ts`, code));
    assert.deepEqual(flagged, []);
  });

  it('allows poll deadlines only inside eventually() in test/helpers/poll.ts', () => {
    const poll = readFileSync('test/helpers/poll.ts', 'utf8');
    assert.deepEqual(findWallClockAssertions('test/helpers/poll.ts', poll), []);
    // The same helper anywhere else is an inline deadline, and is reported.
    assert.ok(findWallClockAssertions('test/rest/somewhere.test.ts', poll).length > 0);
  });

  it('test/**/*.ts has none', () => {
    const files = globSync('test/**/*.ts').sort();
    assert.ok(files.length > 100, `scanned ${files.length} files`);
    const findings = files.flatMap((file) => findWallClockAssertions(file, readFileSync(file, 'utf8')));
    assert.deepEqual(
      findings.map((f) => `${f.file}:${f.line}: ${f.text}`),
      [],
      'assert order or the event itself; timings belong in bench/ (see test/helpers/poll.ts for polling)',
    );
  });
});
