// The floor for SMTP ingest on this machine: smtp-server (what sandtrap's SMTP is built on) with STARTTLS and
// AUTH PLAIN/LOGIN, accepting any login and draining each message, storing and parsing nothing.
// Usage: node floor-smtp.ts <port>
import { generate } from 'selfsigned';
import { SMTPServer } from 'smtp-server';

const port = Number(process.argv[2]);
const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048 } as object);
new SMTPServer({
  key: pems.private,
  cert: pems.cert,
  authMethods: ['PLAIN', 'LOGIN'],
  logger: false,
  onAuth: (_auth, _session, callback) => callback(null, { user: 'bench' }),
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => callback());
  },
}).listen(port, '127.0.0.1');
