// The container test's traffic (.ci/container-test.sh): `send` makes a sandbox in the running container, sends
// it a mail on the inbound SMTP port and an HTTP capture, reads both back through REST and keeps their ids and
// raw bytes in a state file; `verify` (after the container was replaced on the same volume) reads them again
// and checks the bytes are the same. Real clients: nodemailer and fetch. Exits 1 with one line on a mismatch.
import { readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';

const [mode, stateFile] = process.argv.slice(2);
const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const api = `http://127.0.0.1:${env('CT_API_PORT')}/api/v1`;
const auth = { Authorization: `Bearer ${env('CT_KEY')}` };

function fail(line) {
  process.stderr.write(`container-traffic: ${line}\n`);
  process.exit(1);
}

async function call(path, init = {}) {
  const response = await fetch(`${api}${path}`, {
    ...init,
    headers: { ...auth, ...init.headers },
    signal: AbortSignal.timeout(60_000),
  });
  if (!response.ok)
    fail(`${init.method ?? 'GET'} ${path} answered ${response.status}: ${await response.text()}`);
  return response;
}
const json = async (path, init) => (await call(path, init)).json();
const raw = async (path) => Buffer.from(await (await call(path)).arrayBuffer()).toString('base64');

async function send() {
  const smtpInbound = Number(env('CT_SMTP_INBOUND_PORT'));
  const capturePort = env('CT_CAPTURE_PORT');
  const sandbox = await json('/sandboxes', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'container test' }),
  });
  const since = new Date(Date.now() - 1000).toISOString();
  const token = randomUUID();
  const subject = `container test ${token}`;
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpInbound, secure: false });
  await transport.sendMail({
    from: 'app@example.com',
    to: sandbox.emailAddress,
    subject,
    text: `Your code is 482913 (${token})`,
  });
  // HOST=0.0.0.0 in the image: the catch-all is off unless asked, so a stranger's address is refused.
  const refused = await transport
    .sendMail({ from: 'app@example.com', to: 'alice@example.com', subject, text: 'not for a sandbox' })
    .then(
      () => undefined,
      (err) => err,
    );
  if (refused === undefined || refused.responseCode !== 550)
    fail(`mail to a non-sandbox address was not refused with 550 (got ${refused?.response ?? 'accepted'})`);
  transport.close();

  const captured = await fetch(`http://127.0.0.1:${capturePort}/${sandbox.id}/hook?from=container`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token }),
    signal: AbortSignal.timeout(60_000),
  });
  await captured.arrayBuffer();
  const wait = `since=${encodeURIComponent(since)}&timeoutSeconds=30`;
  const message = await json(
    `/sandboxes/${sandbox.id}/messages/wait?subjectContains=${encodeURIComponent(token)}&${wait}`,
  );
  const request = await json(`/sandboxes/${sandbox.id}/requests/wait?method=POST&pathContains=/hook&${wait}`);
  if (message.subject !== subject)
    fail(`message subject ${JSON.stringify(message.subject)}, sent ${subject}`);
  const state = {
    sandboxId: sandbox.id,
    messageId: message.id,
    requestId: request.id,
    subject,
    token,
    messageRaw: await raw(`/sandboxes/${sandbox.id}/messages/${message.id}/raw`),
    requestRaw: await raw(`/sandboxes/${sandbox.id}/requests/${request.id}/raw`),
  };
  if (!Buffer.from(state.requestRaw, 'base64').toString('utf8').includes(token))
    fail('the raw captured request does not hold the body sent');
  writeFileSync(stateFile, JSON.stringify(state));
  process.stdout.write(
    `container-traffic: mail ${message.id} and capture ${request.id} (answered ${captured.status}) stored in ` +
      `sandbox ${sandbox.id}; a mail to alice@example.com was refused (${refused.responseCode})\n`,
  );
}

async function verify() {
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  const base = `/sandboxes/${state.sandboxId}`;
  const message = await json(`${base}/messages/${state.messageId}`);
  if (message.subject !== state.subject) fail(`after the restart the subject is ${message.subject}`);
  if ((await raw(`${base}/messages/${state.messageId}/raw`)) !== state.messageRaw)
    fail('after the restart the raw mail differs');
  if ((await raw(`${base}/requests/${state.requestId}/raw`)) !== state.requestRaw)
    fail('after the restart the raw request differs');
  process.stdout.write(
    `container-traffic: after the restart, mail ${state.messageId} and capture ${state.requestId} read back byte-equal\n`,
  );
}

if (mode === 'send') await send();
else if (mode === 'verify') await verify();
else fail(`usage: container-traffic.mjs send|verify STATE_FILE`);
