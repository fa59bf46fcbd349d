// The client side of the MCP OAuth end-to-end test: an OAuthClientProvider for the MCP SDK that keeps its
// state in memory, the loopback redirect_uri server that receives the authorization response, and an https
// server (self-signed certificate) serving a Client ID Metadata Document.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/**
 * A provider as a native MCP client would write one, kept in memory. Records what the SDK asked of it so
 * the test can check the flow: where it was sent to authorize, each token set saved, what it discarded.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl: string | undefined;
  readonly authorizationUrls: URL[] = [];
  readonly savedTokens: StoredOAuthTokens[] = [];
  readonly invalidated: string[] = [];
  /** The state of the last authorization request: the test compares the callback's state with it. */
  lastState: string | undefined;
  private readonly redirect: string;
  private readonly name: string;
  private client: StoredOAuthClientInformation | undefined;
  private current: StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  constructor(options: { redirectUrl: string; clientName: string; clientMetadataUrl?: string }) {
    this.redirect = options.redirectUrl;
    this.name = options.clientName;
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.lastState = randomBytes(16).toString('base64url');
    return this.lastState;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.client;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.client = info;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.current = tokens;
    this.savedTokens.push(tokens);
  }

  /** Replaces the stored access token (as if it had expired on the server) and keeps the refresh token. */
  spoilAccessToken(replacement: string): void {
    if (this.current === undefined) throw new Error('no tokens to spoil');
    this.current = { ...this.current, access_token: replacement };
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrls.push(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier saved');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

/** A self-signed certificate for 127.0.0.1 that is its own CA, so NODE_EXTRA_CA_CERTS can trust it. */
export async function selfSignedLoopbackCert(): Promise<{ key: string; cert: string }> {
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  } as object);
  return { key: pems.private, cert: pems.cert };
}

export interface MetadataDocumentServer {
  /** https://127.0.0.1:<port>/oauth/client-metadata.json: the client_id. */
  url: string;
  /** How many times the document was fetched. */
  fetches(): number;
  close(): Promise<void>;
}

/** Serves the client's metadata document over https; `document(url)` builds it once the URL is known. */
export async function startMetadataDocumentServer(
  tls: { key: string; cert: string },
  document: (clientId: string) => Record<string, unknown>,
): Promise<MetadataDocumentServer> {
  let count = 0;
  let body = '';
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    if (req.url !== '/oauth/client-metadata.json') {
      res.writeHead(404).end();
      return;
    }
    count += 1;
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/client-metadata.json`;
  body = JSON.stringify(document(url));
  return {
    url,
    fetches: () => count,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes the certificate where a child process can be pointed at it with NODE_EXTRA_CA_CERTS. */
export function writeCaFile(dir: string, cert: string): string {
  const path = join(dir, 'client-metadata-ca.pem');
  writeFileSync(path, cert);
  return path;
}
