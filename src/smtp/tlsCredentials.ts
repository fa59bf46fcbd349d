// The STARTTLS key pair: the operator's PEM files, or a self-signed pair generated once into DATA_DIR.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface TlsCredentials {
  key: string;
  cert: string;
}

/** The pair, and `save()`, which writes a newly generated pair into DATA_DIR (a no-op for one read from files). */
export interface LoadedTlsCredentials extends TlsCredentials {
  save(): Promise<void>;
}

const nothingToSave = async () => {};

export async function loadTlsCredentials(options: {
  certFile: string | undefined;
  keyFile: string | undefined;
  dataDir: string;
  hostname: string;
}): Promise<LoadedTlsCredentials> {
  if (options.certFile !== undefined && options.keyFile !== undefined) {
    const [cert, key] = await Promise.all([
      readFile(options.certFile, 'utf8'),
      readFile(options.keyFile, 'utf8'),
    ]);
    return { cert, key, save: nothingToSave };
  }
  const dir = join(options.dataDir, 'tls');
  const certPath = join(dir, 'smtp-cert.pem');
  const keyPath = join(dir, 'smtp-key.pem');
  try {
    const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    return { cert, key, save: nothingToSave };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  // Loaded only here: a store that already has its pair (every start but the first) skips the x509 modules.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: options.hostname }], {
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 10 * 365 * 86_400_000),
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: options.hostname },
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  } as object);
  // Written by save(), which the caller runs only once it holds DATA_DIR: a process that loses the race for
  // the lock must not replace the winner's pair.
  const save = async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(keyPath, pems.private, { mode: 0o600 });
    await writeFile(certPath, pems.cert);
  };
  return { cert: pems.cert, key: pems.private, save };
}
