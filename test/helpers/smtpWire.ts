// A raw SMTP client for protocol tests: one reply at a time, every read bounded so a hang fails fast.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';

export interface Reply {
  code: number;
  lines: string[];
  /** The reply text without codes, lines joined by \n. */
  text: string;
}

export class Wire {
  #socket: net.Socket | tls.TLSSocket;
  #buffer = '';
  #lines: string[] = [];
  #wake: (() => void) | undefined;
  closed = false;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    this.#attach(socket);
    socket.on('close', () => {
      this.closed = true;
      this.#notify();
    });
  }

  /** `localAddress`: the client's own address (another loopback address, such as 127.0.0.2, is another client). */
  static connect(port: number, localAddress?: string): Promise<Wire> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new Wire(socket));
      });
    });
  }

  /** Connects and reads the 220 greeting. */
  static async open(port: number, localAddress?: string): Promise<Wire> {
    const wire = await Wire.connect(port, localAddress);
    const greeting = await wire.read();
    assert.equal(greeting.code, 220, greeting.text);
    return wire;
  }

  #attach(socket: net.Socket | tls.TLSSocket): void {
    socket.on('error', () => {}); // a reset is seen as `closed`
    socket.on('data', (chunk: Buffer) => {
      this.#buffer += chunk.toString('latin1');
      let end: number;
      while ((end = this.#buffer.indexOf('\r\n')) >= 0) {
        this.#lines.push(this.#buffer.slice(0, end));
        this.#buffer = this.#buffer.slice(end + 2);
      }
      this.#notify();
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async #nextLine(timeout: { over: boolean }): Promise<string> {
    while (this.#lines.length === 0) {
      if (this.closed) throw new Error('connection closed while waiting for a reply');
      if (timeout.over) throw new Error('timed out waiting for an SMTP reply');
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    return this.#lines.shift() as string;
  }

  /** Reads one (possibly multi-line) reply; `timeoutMs` is a hang guard, generous for a busy machine. */
  async read(timeoutMs = 20_000): Promise<Reply> {
    const timeout = { over: false };
    const timer = setTimeout(() => {
      timeout.over = true;
      this.#notify();
    }, timeoutMs);
    const lines: string[] = [];
    try {
      for (;;) {
        const line = await this.#nextLine(timeout);
        lines.push(line);
        if (!/^\d{3}-/.test(line)) break;
      }
    } finally {
      clearTimeout(timer);
    }
    return {
      code: Number((lines.at(-1) as string).slice(0, 3)),
      lines,
      text: lines.map((l) => l.slice(4)).join('\n'),
    };
  }

  write(data: string | Buffer): void {
    this.#socket.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }

  async command(line: string, timeoutMs?: number): Promise<Reply> {
    this.write(`${line}\r\n`);
    return this.read(timeoutMs);
  }

  async startTls(): Promise<void> {
    const reply = await this.command('STARTTLS');
    assert.equal(reply.code, 220, reply.text);
    const plain = this.#socket;
    plain.removeAllListeners('data');
    const secure = tls.connect({ socket: plain as net.Socket, rejectUnauthorized: false });
    await Promise.race([
      once(secure, 'secureConnect'),
      new Promise((_r, reject) => setTimeout(() => reject(new Error('TLS handshake timed out')), 20_000)),
    ]);
    this.#socket = secure;
    this.#attach(secure);
  }

  /** Resolves true once the server closed the connection, false after `timeoutMs` (generous by default). */
  async waitClosed(timeoutMs = 20_000): Promise<boolean> {
    let over = false;
    const timer = setTimeout(() => {
      over = true;
      this.#notify();
    }, timeoutMs);
    try {
      while (!this.closed && !over) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#lines.length = 0;
      }
    } finally {
      clearTimeout(timer);
    }
    return this.closed;
  }

  close(): void {
    this.#socket.destroy();
  }
}

/** The AUTH PLAIN initial response for `user` and `pass`. */
export const plainAuth = (user: string, pass: string) => Buffer.from(`\0${user}\0${pass}`).toString('base64');

/** greeting, EHLO, STARTTLS, EHLO, AUTH PLAIN with a sandbox's SMTP credentials: a session ready for MAIL. */
export async function authedWire(
  port: number,
  sandbox: Record<string, any>,
  localAddress?: string,
): Promise<Wire> {
  const wire = await Wire.open(port, localAddress);
  assert.equal((await wire.command('EHLO raw.test')).code, 250);
  await wire.startTls();
  assert.equal((await wire.command('EHLO raw.test')).code, 250);
  const auth = await wire.command(`AUTH PLAIN ${plainAuth(sandbox.smtpUsername, sandbox.smtpPassword)}`);
  assert.equal(auth.code, 235, auth.text);
  return wire;
}
