// Captured requests as a HAR 1.2 log (the format browsers' dev tools import), downloaded through a blob URL.
import type { components } from '../../../../openapi/schema.d.ts';
import { requestUrl } from './curl.ts';

type RequestDetail = components['schemas']['RequestDetail'];

interface HarNameValue {
  name: string;
  value: string;
}

function header(detail: RequestDetail, name: string): string | undefined {
  return detail.headers.find((h) => h.name.toLowerCase() === name)?.value;
}

function postData(detail: RequestDetail) {
  if (detail.body === null || detail.sizeBytes === 0) return undefined;
  const mimeType = header(detail, 'content-type') ?? '';
  const data: {
    mimeType: string;
    text: string;
    params?: HarNameValue[];
    encoding?: string;
    comment?: string;
  } = {
    mimeType,
    text: detail.body,
  };
  // HAR has no field for base64 text in postData; "encoding" is the de-facto extension tools read.
  if (detail.bodyEncoding === 'base64') data.encoding = 'base64';
  if (detail.form.length > 0) data.params = detail.form.map((f) => ({ name: f.name, value: f.value }));
  if (detail.bodyTruncated) data.comment = 'body cut by sandtrap; the raw request has every byte';
  return data;
}

/** One HAR entry; sandtrap records the request and the status it answered, so the response part is that much. */
export function harEntry(detail: RequestDetail, captureUrl: string) {
  const request: Record<string, unknown> = {
    method: detail.method,
    url: requestUrl(captureUrl, detail.path, detail.query),
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: detail.headers.map((h) => ({ name: h.name, value: h.value })),
    queryString: detail.queryParams.map((q) => ({ name: q.name, value: q.value })),
    headersSize: -1,
    bodySize: detail.sizeBytes,
  };
  const post = postData(detail);
  if (post !== undefined) request.postData = post;
  return {
    startedDateTime: detail.receivedAt,
    time: 0,
    request,
    response: {
      status: detail.mockStatusCode,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size: -1, mimeType: '' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      comment: detail.mockName === null ? 'default reply' : `mock rule: ${detail.mockName}`,
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    comment: `sandtrap request ${detail.id} from ${detail.sourceIp ?? 'unknown source'}`,
  };
}

export function harLog(details: RequestDetail[], captureUrl: string) {
  return {
    log: {
      version: '1.2',
      creator: { name: 'sandtrap', version: '1' },
      entries: details.map((d) => harEntry(d, captureUrl)),
    },
  };
}
