// The process's open-file limit, and the share of it the API listener may take. Node itself raises the soft
// limit to the hard one before any JavaScript runs (PlatformInit in Node's src/node.cc, on every POSIX system),
// so there is nothing left to raise here: this reads the limit in force, and FD_RESERVE descriptors stay out of
// the API listener's reach so SMTP, capture, the store and log files can still open theirs when it is full.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface FdLimit {
  soft: number;
  hard: number;
}

const parse = (value: string | undefined) =>
  value === undefined ? NaN : value === 'unlimited' ? Infinity : Number(value);

/** The soft and hard RLIMIT_NOFILE of this process, or undefined where it cannot be read (Windows). */
export function readFdLimit(): FdLimit | undefined {
  if (process.platform === 'win32') return undefined;
  let soft = NaN;
  let hard = NaN;
  try {
    // Linux: no child process needed.
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    [soft, hard] = (line?.slice('Max open files'.length).trim().split(/\s+/) ?? []).map(parse) as [
      number,
      number,
    ];
  } catch {
    // macOS and the BSDs: a shell inherits this process's limits.
    const out = spawnSync('/bin/sh', ['-c', 'ulimit -Sn; ulimit -Hn'], { encoding: 'utf8', timeout: 2_000 });
    [soft, hard] = (out.stdout ?? '').trim().split('\n').map(parse) as [number, number];
  }
  return Number.isNaN(soft) || Number.isNaN(hard) ? undefined : { soft, hard };
}

export interface ApiConnectionBudget {
  maxConnections: number;
  /** Set when the limit is too low for the reserve: what the operator should change. */
  warning?: string;
}

/** The API listener's connection cap: `ceiling`, and never more than the soft limit less the reserve. */
export function apiConnectionBudget(
  limit: FdLimit | undefined,
  reserve: number,
  ceiling: number,
): ApiConnectionBudget {
  if (limit === undefined || limit.soft === Infinity) return { maxConnections: ceiling };
  if (limit.soft > reserve) return { maxConnections: Math.min(ceiling, limit.soft - reserve) };
  return {
    maxConnections: Math.max(1, Math.floor(limit.soft / 2)),
    warning:
      `the open-file limit (${limit.soft}) is not above FD_RESERVE (${reserve}): the API listener takes at most ` +
      'half of it; raise the limit (ulimit -n, LimitNOFILE=, --ulimit nofile=) or lower FD_RESERVE',
  };
}
