// Sends mail with Python smtplib through smtplib_send.py, for the SMTP listener tests.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const SMTPLIB = fileURLToPath(new URL('./smtplib_send.py', import.meta.url));
const execFileP = promisify(execFile);

export interface SmtplibSpec {
  host?: string;
  port: number;
  starttls?: boolean;
  username?: string;
  password?: string;
  mail_from: string;
  rcpt_to: string[];
  subject?: string;
  body?: string;
  raw?: string;
}
export type SmtplibResult =
  | { ok: true }
  /** `disconnected`: the server closed the connection without a reply (code 0). */
  | { ok: false; stage: string; code: number; message: string; disconnected?: true };

export async function smtplib(spec: SmtplibSpec): Promise<SmtplibResult> {
  const { stdout } = await execFileP('python3', [SMTPLIB, JSON.stringify({ host: '127.0.0.1', ...spec })], {
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as SmtplibResult;
}

/** The same helper, for a spec too large for a command-line argument: the JSON goes in on stdin. */
export async function smtplibLarge(spec: SmtplibSpec): Promise<SmtplibResult> {
  const code =
    'import runpy, sys\n' +
    'spec = sys.stdin.read()\n' +
    'path = sys.argv[1]\n' +
    'sys.argv = [path, spec]\n' +
    'runpy.run_path(path, run_name="__main__")\n';
  const run = execFileP('python3', ['-c', code, SMTPLIB], { timeout: 60_000, maxBuffer: 1024 * 1024 });
  run.child.stdin?.end(JSON.stringify({ host: '127.0.0.1', ...spec }));
  const { stdout } = await run;
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as SmtplibResult;
}
