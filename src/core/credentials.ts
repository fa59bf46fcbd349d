// The API key a request presents, read once for every door (REST, MCP): `Authorization: Bearer <key>` or
// `X-Api-Key: <key>`. A header sent twice is refused rather than "first one wins", which a proxy and the
// service could read differently.
export type PresentedCredential =
  { ok: true; key: string | undefined } | { ok: false; header: 'Authorization' | 'X-Api-Key' };

/** Malformed header syntax counts as a malformed key (a single space), never as a missing one. */
const MALFORMED = ' ';

/** `rawHeaders` as Node gives them: name, value, name, value… (duplicates kept, unlike `headers`). */
export function presentedCredential(rawHeaders: readonly string[]): PresentedCredential {
  let authorization: string | undefined;
  let apiKey: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    if (name === 'authorization') {
      if (authorization !== undefined) return { ok: false, header: 'Authorization' };
      authorization = value;
    } else if (name === 'x-api-key') {
      if (apiKey !== undefined) return { ok: false, header: 'X-Api-Key' };
      apiKey = value;
    }
  }
  if (authorization !== undefined) {
    const bearer = /^Bearer[ \t]+(\S*)[ \t]*$/i.exec(authorization);
    return { ok: true, key: bearer === null ? MALFORMED : bearer[1] };
  }
  return { ok: true, key: apiKey?.trim() };
}

export function duplicateCredentialMessage(header: string): string {
  return `The ${header} header was sent more than once; send the API key once, in one header.`;
}
