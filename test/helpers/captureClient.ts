// A raw HTTP client for the capture listener: node's http.request, so header names keep their case and
// order, with the reply's bytes, its X-Sandtrap-Request-Id and the socket it came on.
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { UUID_RE } from './shapes.ts';

export interface Sent {
  method?: string;
  /** The request target: path and query, sent as is. */
  path: string;
  /** Set one by one with setHeader, so names keep their case; an array sends one line per value. */
  headers?: Record<string, string | string[]>;
  body?: Buffer | string;
  agent?: http.Agent;
}

export interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
  /** X-Sandtrap-Request-Id of the reply. */
  requestId: string | undefined;
  socket: net.Socket;
}

export function sendCapture(port: number, s: Sent): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: s.method ?? 'GET',
      path: s.path,
      ...(s.agent === undefined ? {} : { agent: s.agent }),
    });
    for (const [name, value] of Object.entries(s.headers ?? {})) req.setHeader(name, value);
    let socket: net.Socket | undefined;
    req.on('socket', (sock) => (socket = sock));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const id = res.headers['x-sandtrap-request-id'];
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks),
          requestId: typeof id === 'string' ? id : undefined,
          socket: socket as net.Socket,
        });
      });
    });
    req.end(s.body);
  });
}

/** Sends one capture to `/<sandboxId><path>` and asserts it was recorded (an X-Sandtrap-Request-Id came back). */
export async function sendRecorded(
  port: number,
  sandboxId: string,
  s: Sent,
): Promise<Got & { requestId: string }> {
  const got = await sendCapture(port, { ...s, path: `/${sandboxId}${s.path}` });
  assert.ok(got.requestId !== undefined && UUID_RE.test(got.requestId), `recorded, got ${got.status}`);
  return got as Got & { requestId: string };
}
