// A raw HTTP/1.1 client on one socket, for connection tests: it chooses its own address (localAddress), keeps
// the connection open unless the server closes it, and says whether the server did.
import net from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export class RawHttp {
  #socket: net.Socket;
  #buffer = Buffer.alloc(0);
  #wake: (() => void) | undefined;
  closed = false;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on('error', () => {}); // a reset is seen as `closed`
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#notify();
    });
    socket.on('close', () => {
      this.closed = true;
      this.#notify();
    });
  }

  /** Connects to 127.0.0.1:`port` from `localAddress` (127.0.0.1 unless given); rejects if refused. */
  static open(port: number, localAddress?: string): Promise<RawHttp> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawHttp(socket));
      });
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async #until<T>(ready: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    // A timer, not a clock comparison: it only ends a wait whose answer never came.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.#notify();
    }, timeoutMs);
    try {
      for (;;) {
        const value = ready();
        if (value !== undefined) return value;
        if (this.closed) throw new Error(`connection closed while waiting for ${what}`);
        if (timedOut) throw new Error(`timed out waiting for ${what}`);
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends a GET (keep-alive unless `headers` say otherwise). */
  send(path: string, headers: Record<string, string> = {}): void {
    const lines = Object.entries({ host: '127.0.0.1', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
    this.#socket.write(`GET ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
  }

  /** Reads one whole response (a Content-Length body). */
  async read(timeoutMs = 10_000): Promise<RawResponse> {
    return this.#until(
      () => {
        const end = this.#buffer.indexOf('\r\n\r\n');
        if (end < 0) return undefined;
        const [statusLine, ...headerLines] = this.#buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of headerLines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        if (this.#buffer.length < end + 4 + length) return undefined;
        const body = this.#buffer.subarray(end + 4, end + 4 + length).toString('utf8');
        this.#buffer = this.#buffer.subarray(end + 4 + length);
        return { status: Number((statusLine ?? '').split(' ')[1]), headers, body };
      },
      timeoutMs,
      'a response',
    );
  }

  async get(path: string, headers?: Record<string, string>, timeoutMs?: number): Promise<RawResponse> {
    this.send(path, headers);
    return this.read(timeoutMs);
  }

  /** Resolves true once the server closed the connection, false after the timeout. */
  async waitClosed(timeoutMs = 10_000): Promise<boolean> {
    return this.#until(() => (this.closed ? true : undefined), timeoutMs, 'the close').catch(
      () => this.closed,
    );
  }

  close(): void {
    this.#socket.destroy();
  }
}
