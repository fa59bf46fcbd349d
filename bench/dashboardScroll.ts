// Dashboard mail list at 100,000 messages (issue 18, "smooth at 100,000 messages"): a real `sandtrap serve`
// filled over SMTP, Debian's chromium signed in through the form (the first load's compressed script and style
// against design.md's 100 KB), then first list paint, scrolling through
// keyset pages (per-page load, DOM rows, JS heap, frame timing, long tasks) and search, on the embedded store
// and, with --pg, on PostgreSQL. The dashboard measured is dist/web as built by `npm run build:web`.
//
// The issue names no numbers, so the targets are the usual browser budgets (RAIL): a frame within 20 ms
// (one 60 Hz frame with jitter), no task over 50 ms while scrolling, a response within 100 ms of the data
// arriving, the first rows within 1 s; the DOM stays bounded however far the reader scrolls.
//
// Options: --pg, --no-embedded, --messages=N (100000), --stages=2000,10000 (rows loaded by scrolling),
// --px-per-frame=N (scroll speed, 200 px a frame is a brisk wheel fling at 60 Hz).
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import nodemailer from 'nodemailer';
import { chromium, type Browser, type CDPSession, type Page, type Request } from 'playwright-core';
import { freshDatabase } from './lib/pg.ts';
import { report, type Row } from './lib/report.ts';
import { freePort, percentile, startSandtrap, type BenchServer } from './lib/sandtrap.ts';

const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const SMTP_CONNECTIONS = 8;
const RELOADS = 3;

const arg = (name: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(`--${name}=`.length);
const TOTAL = Number(arg('messages') ?? 100_000);
const STAGES = (arg('stages') ?? '2000,10000').split(',').map(Number);
const PX_PER_FRAME = Number(arg('px-per-frame') ?? 200);
const usePg = process.argv.includes('--pg');
const embeddedStore = !process.argv.includes('--no-embedded');

const rows: Row[] = [];
const ms = (v: number) => `${v.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

async function api(server: BenchServer, path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${server.apiUrl}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

// --- fill: small messages through the plain inbound SMTP port, several pooled connections -------------

function message(to: string, i: number): string {
  return (
    `From: Shop ${i % 500} <shop${i % 500}@sender.example>\r\nTo: ${to}\r\n` +
    `Subject: Order #${i} is confirmed\r\n` +
    `Message-ID: <${i}.${randomBytes(6).toString('hex')}@bench.localhost>\r\n` +
    `Date: ${new Date().toUTCString()}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n` +
    `Thanks for your order ${i}. Your sign-in code is ${String((i * 7919) % 1_000_000).padStart(6, '0')}.\r\n`
  );
}

async function fill(inboundPort: number, sandboxId: string, total: number): Promise<number> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: inboundPort,
    ignoreTLS: true,
    pool: true,
    maxConnections: SMTP_CONNECTIONS,
    maxMessages: Infinity,
    socketTimeout: 60_000,
  } as any);
  const to = `user@${sandboxId}.capture.localhost`;
  const from = 'bench@sender.localhost';
  let next = 1;
  const start = performance.now();
  const worker = async () => {
    while (next <= total) {
      const i = next++;
      await transport.sendMail({ envelope: { from, to: [to] }, raw: message(to, i) });
      if (i % 10_000 === 0) {
        const s = (performance.now() - start) / 1000;
        console.log(`  sent ${i} (${(i / s).toFixed(0)} msgs/s)`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: SMTP_CONNECTIONS }, worker));
  } finally {
    transport.close();
  }
  return (performance.now() - start) / 1000;
}

// --- the in-page probe: installed before the dashboard's own script on every document --------------

/** Records long tasks, the /messages fetches, commits of the list's count line, clicks and the first row. */
function probe(): void {
  const g = globalThis as any;
  const b: any = { longTasks: [], countCommits: [], clickAt: 0, firstRowAt: 0 };
  g.__bench = b;
  // Read from the timeline when needed: an observer's callbacks arrive later than the commits they explain.
  g.performance.setResourceTimingBufferSize(1_000_000);
  b.fetches = () =>
    g.performance
      .getEntriesByType('resource')
      .filter((e: any) => /\/api\/v1\/sandboxes\/[^/]+\/messages\?/.test(e.name))
      .map((e: any) => ({ url: e.name, start: e.startTime, end: e.responseEnd }));
  new g.PerformanceObserver((list: any) => {
    for (const e of list.getEntries()) b.longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  g.document.addEventListener('click', () => (b.clickAt = g.performance.now()), { capture: true });
  let countEl: any = null;
  const countObserver = new g.MutationObserver(() =>
    b.countCommits.push({ at: g.performance.now(), text: countEl?.textContent ?? '' }),
  );
  // The first row counts as painted once the frame that follows its insertion has run.
  new g.MutationObserver(() => {
    const el = g.document.querySelector('.items-count');
    if (el !== null && el !== countEl) {
      countEl = el;
      countObserver.disconnect();
      countObserver.observe(el, { childList: true, characterData: true, subtree: true });
    }
    if (b.firstRowAt === 0 && g.document.querySelector('ul[aria-label="Messages"] > li') !== null) {
      b.firstRowAt = -1;
      g.requestAnimationFrame(() => g.setTimeout(() => (b.firstRowAt = g.performance.now()), 0));
    }
  }).observe(g.document, { childList: true, subtree: true });
}

interface ScrollResult {
  frames: number[];
  pages: Array<{ rows: number; fetchMs: number; loadMs: number }>;
  stallFrames: number;
  startAt: number;
  endAt: number;
  rows: number;
}

/**
 * Scrolls the list's own box by `step` px every frame until `target` rows are loaded, recording every
 * frame interval and, for each page, its fetch (request start to response end) and load (request start to
 * the commit that shows its rows). A frame spent at the bottom waiting for the next page is a stall.
 */
async function scrollTo(page: Page, target: number, step: number): Promise<ScrollResult> {
  return page.evaluate(
    async ({ target, step }) => {
      const g = globalThis as any;
      const b = g.__bench;
      const scroller = g.document.querySelector('.items-scroll');
      const loaded = () =>
        Number(/^(\d+)/.exec(g.document.querySelector('.items-count')?.textContent ?? '')?.[1] ?? 0);
      const frame = () => new Promise<number>((r) => g.requestAnimationFrame(r));
      const frames: number[] = [];
      let stallFrames = 0;
      const startAt = await frame();
      let last = startAt;
      const fetchesBefore = b.fetches().length;
      const commitsBefore = b.countCommits.length;
      // The end of the list (no "Load older mail" left) ends the scroll too.
      while (loaded() < target && g.document.querySelector('.load-more') !== null) {
        const now = await frame();
        frames.push(now - last);
        last = now;
        if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) stallFrames++;
        scroller.scrollTop += step;
        if (now - startAt > 600_000) throw new Error(`only ${loaded()} rows after 10 minutes of scrolling`);
      }
      // The last page's row must be painted: one more frame.
      await frame();
      const endAt = g.performance.now();
      const pages = [];
      const fetches = b
        .fetches()
        .slice(fetchesBefore)
        .filter((f: any) => f.url.includes('cursor='));
      const commits = b.countCommits.slice(commitsBefore);
      for (const f of fetches) {
        const shown = commits.find((c: any) => c.at >= f.end);
        if (shown === undefined) continue;
        pages.push({
          rows: Number(/^(\d+)/.exec(shown.text)?.[1] ?? 0),
          fetchMs: f.end - f.start,
          loadMs: shown.at - f.start,
        });
      }
      return { frames, pages, stallFrames, startAt, endAt, rows: loaded() };
    },
    { target, step },
  );
}

async function metrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

/**
 * Where the main thread's time goes while scrolling: a V8 CPU profile of `target` more rows, as shares of
 * idle, native work (layout, style, paint: "(program)"), garbage collection and the dashboard's own script,
 * with the script's heaviest functions by self time (names are minified; line:column point into the bundle).
 */
async function profileScroll(page: Page, cdp: CDPSession, target: number): Promise<string> {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await scrollTo(page, target, PX_PER_FRAME);
  const { profile } = await cdp.send('Profiler.stop');
  const byNode = new Map<number, number>();
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, i) => byNode.set(id, (byNode.get(id) ?? 0) + (deltas[i] ?? 0) / 1000));
  const buckets = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const self = byNode.get(node.id) ?? 0;
    total += self;
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    const bucket = url.includes('/assets/app-')
      ? 'dashboard script'
      : url === ''
        ? functionName || '(native)'
        : 'other script';
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + self);
    if (url.includes('/assets/app-')) {
      const name = `${functionName || '(anonymous)'}@${lineNumber + 1}:${columnNumber + 1}`;
      fns.set(name, (fns.get(name) ?? 0) + self);
    }
  }
  const share = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${k} ${((v / total) * 100).toFixed(1)}%`)
      .join(', ');
  return `${share(buckets, 6)}; heaviest script: ${share(fns, 4)}`;
}

async function longTasks(page: Page, from: number, to: number): Promise<number[]> {
  return page.evaluate(
    ({ from, to }) =>
      (globalThis as any).__bench.longTasks
        .filter((t: any) => t.start >= from && t.start <= to)
        .map((t: any) => t.duration as number),
    { from, to },
  );
}

/** Types `q` key by key into the search box; the time from the last keystroke to the commit showing `done`. */
async function search(
  page: Page,
  q: string,
  done: string,
): Promise<{ shownMs: number; fetchMs: number; debounceMs: number }> {
  const box = page.getByLabel('Search mail');
  await page.evaluate(() => {
    const g = globalThis as any;
    g.__bench.lastInput = 0;
    g.__bench.fetchesBefore = g.__bench.fetches().length;
    g.document
      .querySelector('input[aria-label="Search mail"]')
      .addEventListener('input', () => (g.__bench.lastInput = g.performance.now()));
  });
  await box.pressSequentially(q, { delay: 60 });
  return page.evaluate(
    async ({ q, done }) => {
      const g = globalThis as any;
      const b = g.__bench;
      // The mail list sends the box's text as `search=` (the query syntax), not the spec's `q=`.
      const isSearch = (url: string) => new URL(url, g.location.href).searchParams.has('search');
      const matches = () => {
        const text: string = g.document.querySelector('.items-pane')?.textContent ?? '';
        const count: string = g.document.querySelector('.items-count')?.textContent ?? '';
        // Only a commit after the search's own answer counts: the list may already look done beforehand.
        const answered = b
          .fetches()
          .slice(b.fetchesBefore)
          .some((x: any) => isSearch(x.url) && x.start >= b.lastInput);
        return answered && (done === 'empty' ? text.includes('No mail matches') : count.startsWith(done));
      };
      const shownAt = await new Promise<number>((resolve, reject) => {
        if (matches()) {
          resolve(g.performance.now());
          return;
        }
        const observer = new g.MutationObserver(() => {
          if (matches()) {
            observer.disconnect();
            resolve(g.performance.now());
          }
        });
        observer.observe(g.document.body, { childList: true, characterData: true, subtree: true });
        g.setTimeout(() => reject(new Error(`search "${q}" did not show "${done}" in 30 s`)), 30_000);
      });
      // The debounce sends one query after the last key: the last search fetch is the one that answered.
      const f = b
        .fetches()
        .slice(b.fetchesBefore)
        .filter((x: any) => isSearch(x.url))
        .at(-1);
      return {
        shownMs: shownAt - b.lastInput,
        fetchMs: f === undefined ? NaN : f.end - f.start,
        debounceMs: f === undefined ? NaN : f.start - b.lastInput,
      };
    },
    { q, done },
  );
}

async function measureDashboard(store: string, server: BenchServer, sandbox: any): Promise<void> {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(probe);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');

    // The first load's script and style as sent (compressed), from a fresh context with nothing cached.
    const sent: Array<Promise<{ type: string; bytes: number; encoding: string }>> = [];
    const onFinished = (request: Request) => {
      const type = request.resourceType();
      if (type !== 'script' && type !== 'stylesheet') return;
      sent.push(
        (async () => {
          const response = await request.response();
          return {
            type,
            bytes: (await request.sizes()).responseBodySize,
            encoding: (await response?.headerValue('content-encoding')) ?? 'identity',
          };
        })(),
      );
    };
    page.on('requestfinished', onFinished);
    // Sign in through the form, then open the sandbox and its Mail tab (the first tab) as a person would.
    await page.goto(`${server.apiUrl}/`);
    await page.getByLabel('API key').fill(server.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sandboxes', exact: true }).waitFor();
    page.off('requestfinished', onFinished);
    const firstLoad = await Promise.all(sent);
    const sentBytes = (type: string) =>
      firstLoad.filter((f) => f.type === type).reduce((sum, f) => sum + f.bytes, 0);
    const firstLoadBytes = sentBytes('script') + sentBytes('stylesheet');
    rows.push({
      workload: `dashboard first load (${store}): script and style sent, compressed, nothing cached`,
      target: '<= 100 KB',
      measured:
        `${(firstLoadBytes / 1024).toFixed(1)} KB (script ${(sentBytes('script') / 1024).toFixed(1)} KB, ` +
        `style ${(sentBytes('stylesheet') / 1024).toFixed(1)} KB; ` +
        `${[...new Set(firstLoad.map((f) => f.encoding))].join(', ')})`,
      met: firstLoad.length > 0 && firstLoadBytes <= 100 * 1024,
    });
    await page.getByRole('link', { name: sandbox.name, exact: true }).click();
    const list = page.getByRole('list', { name: 'Messages' });
    await list.locator('li').first().waitFor({ timeout: 60_000 });
    await page.waitForFunction(() => (globalThis as any).__bench.firstRowAt > 0);
    const clicked = await page.evaluate(() => {
      const b = (globalThis as any).__bench;
      return b.firstRowAt - b.clickAt;
    });
    rows.push({
      workload: `first list paint (${store}), click on the sandbox to first row painted`,
      target: '<= 1000 ms',
      measured: ms(clicked),
      met: clicked <= 1000,
    });

    const reloads: number[] = [];
    for (let i = 0; i < RELOADS; i++) {
      await page.reload();
      await page.waitForFunction(() => (globalThis as any).__bench.firstRowAt > 0, undefined, {
        timeout: 60_000,
      });
      reloads.push(await page.evaluate(() => (globalThis as any).__bench.firstRowAt as number));
    }
    const r = sorted(reloads);
    rows.push({
      workload: `first list paint (${store}), reload of /s/{id}: navigation to first row painted, ${RELOADS} loads`,
      target: '<= 1000 ms',
      measured: `p50 ${ms(percentile(r, 50))}, max ${ms(r.at(-1) ?? NaN)}`,
      met: (r.at(-1) ?? Infinity) <= 1000,
      samples: r,
    });

    // The reloaded page holds the first page only; scroll down through the stages from there.
    for (const target of STAGES) {
      const before = await metrics(cdp);
      const s = await scrollTo(page, target, PX_PER_FRAME);
      const after = await metrics(cdp);
      await cdp.send('HeapProfiler.collectGarbage');
      const heap = await metrics(cdp);
      const domRows = await page.evaluate(
        () => (globalThis as any).document.querySelectorAll('ul[aria-label="Messages"] > li').length,
      );
      const tasks = await longTasks(page, s.startAt, s.endAt);
      const frames = sorted(s.frames);
      const loads = sorted(s.pages.map((p) => p.loadMs));
      const fetches = sorted(s.pages.map((p) => p.fetchMs));
      const seconds = (s.endAt - s.startAt) / 1000;
      const label = `scroll to ${target.toLocaleString('en')} rows (${store})`;
      const spent = (name: string) => ((after[name] ?? 0) - (before[name] ?? 0)) * 1000;
      rows.push({
        workload: `${label}: page load (fetch + render), ${s.pages.length} pages`,
        target: 'p95 <= 100 ms',
        measured: `p50 ${ms(percentile(loads, 50))}, p95 ${ms(percentile(loads, 95))}, max ${ms(loads.at(-1) ?? NaN)}; fetch alone p50 ${ms(percentile(fetches, 50))}, p95 ${ms(percentile(fetches, 95))}`,
        met: percentile(loads, 95) <= 100,
        pages: s.pages,
      });
      rows.push({
        workload: `${label}: frame interval while scrolling ${PX_PER_FRAME} px/frame, ${frames.length} frames`,
        target: 'p95 <= 20 ms',
        measured: `p50 ${ms(percentile(frames, 50))}, p95 ${ms(percentile(frames, 95))}, max ${ms(frames.at(-1) ?? NaN)}; ${frames.filter((f) => f > 34).length} frames > 34 ms; ${s.stallFrames} frames waiting at the bottom`,
        met: percentile(frames, 95) <= 20,
      });
      rows.push({
        workload: `${label}: long tasks (> 50 ms) while scrolling, ${seconds.toFixed(1)} s`,
        target: '0',
        measured: `${tasks.length}${tasks.length > 0 ? ` (max ${ms(Math.max(...tasks))}, total ${ms(tasks.reduce((a, b) => a + b, 0))})` : ''}; main thread: script ${spent('ScriptDuration').toFixed(0)} ms, layout ${spent('LayoutDuration').toFixed(0)} ms, style ${spent('RecalcStyleDuration').toFixed(0)} ms of ${spent('TaskDuration').toFixed(0)} ms busy`,
        met: tasks.length === 0,
        longTasks: tasks,
      });
      rows.push({
        workload: `${label}: DOM rows, JS heap after GC, DOM nodes`,
        target: 'rows bounded (<= 400)',
        measured: `${domRows} <li> of ${s.rows} loaded; heap ${mb(heap.JSHeapUsedSize ?? NaN)}; ${heap.Nodes} nodes`,
        met: domRows <= 400,
      });
    }

    const last = STAGES.at(-1) ?? 0;
    rows.push({
      workload: `where the time goes: CPU profile of scrolling from ${last.toLocaleString('en')} to ${(last + 1000).toLocaleString('en')} rows (${store})`,
      target: '-',
      measured: await profileScroll(page, cdp, last + 1000),
      met: null,
    });

    // Search on the full sandbox: one message, a word in every message, and nothing.
    const n = Math.max(1, Math.floor(TOTAL * 0.54321));
    // Quoted: a typed word is a word prefix, and the bodies' six-digit codes start with any order number, so
    // unquoted `Order #54321 is` also finds the mails whose code is 543210-543219.
    const cases: Array<[string, string, string]> = [
      [`one message ('"Order #${n} is"', a phrase)`, `"Order #${n} is"`, '1 shown'],
      ['every message ("confirmed")', 'confirmed', '50+ shown'],
      ['no message ("zzqx")', 'zzqx', 'empty'],
    ];
    for (const [what, q, done] of cases) {
      const res = await search(page, q, done);
      rows.push({
        workload: `search (${store}) over ${TOTAL.toLocaleString('en')}, typed: ${what}, last key to rows shown`,
        target: '<= 350 ms (250 ms debounce + 100)',
        measured: `${ms(res.shownMs)} (debounce ${ms(res.debounceMs)}, fetch ${ms(res.fetchMs)}, render ${ms(res.shownMs - res.debounceMs - res.fetchMs)})`,
        met: res.shownMs <= 350,
      });
      // Clearing the box returns to the whole list: wait for its first page before the next query.
      await page.getByLabel('Search mail').fill('');
      await page.waitForFunction(() =>
        ((globalThis as any).document.querySelector('.items-count')?.textContent ?? '').startsWith('50+'),
      );
    }
    await context.close();
  } finally {
    await browser.close();
  }
}

async function run(store: string, env: Record<string, string>): Promise<void> {
  const inboundPort = await freePort();
  const server = await startSandtrap({ ...env, SMTP_INBOUND_PORT: String(inboundPort) });
  try {
    const sandbox = await api(server, '/sandboxes', {
      method: 'POST',
      body: JSON.stringify({ name: 'scroll bench' }),
    });
    console.log(`filling ${TOTAL} messages (${store}) over SMTP, ${SMTP_CONNECTIONS} connections`);
    const seconds = await fill(inboundPort, sandbox.id, TOTAL);
    const page = await api(server, `/sandboxes/${sandbox.id}/messages?limit=1`);
    rows.push({
      workload: `fill (${store}): ${TOTAL.toLocaleString('en')} small messages, plain inbound SMTP, ${SMTP_CONNECTIONS} pooled conns`,
      target: '-',
      measured: `${seconds.toFixed(0)} s (${(TOTAL / seconds).toFixed(0)} msgs/s); newest listed: ${page.items[0]?.subject}`,
      met: null,
    });
    await measureDashboard(store, server, sandbox);
  } catch (err) {
    rows.push({
      workload: `dashboard scroll (${store})`,
      target: '-',
      measured: `FAILED: ${String(err)}`,
      met: false,
    });
    console.error(err);
  } finally {
    await server.stop();
  }
}

// Frame timing is only as good as the machine is quiet: say how busy it was.
const loadAtStart = loadavg()[0] ?? NaN;
if (embeddedStore) await run('embedded', {});
if (usePg) {
  const fresh = await freshDatabase();
  try {
    await run('PostgreSQL', { DATABASE_URL: fresh.url });
  } finally {
    await fresh.drop();
  }
}
rows.push({
  workload: `machine: ${cpus().length} CPUs, 1-min load average at start / end`,
  target: '-',
  measured: `${loadAtStart.toFixed(2)} / ${(loadavg()[0] ?? NaN).toFixed(2)}`,
  met: null,
});
report('dashboard scroll', rows);
