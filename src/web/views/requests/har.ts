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

/** The reply sent, as far as it was recorded (requests captured before replies were kept have the status only). */
function harResponse(detail: RequestDetail) {
  const reply = detail.response;
  const headers = reply?.headers.map((h) => ({ name: h.name, value: h.value })) ?? [];
  const content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string } = {
    size: reply?.sizeBytes ?? -1,
    mimeType: headers.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? '',
  };
  if (reply !== null && reply.body !== null) {
    content.text = reply.body;
    if (reply.bodyEncoding === 'base64') content.encoding = 'base64';
    if (reply.bodyTruncated) content.comment = 'body cut at 64 KB by sandtrap';
  }
  const rule = detail.mockName === null ? 'default reply' : `mock rule: ${detail.mockName}`;
  return {
    status: detail.mockStatusCode,
    statusText: '',
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers,
    content,
    redirectURL: headers.find((h) => h.name.toLowerCase() === 'location')?.value ?? '',
    headersSize: -1,
    bodySize: reply?.sizeBytes ?? -1,
    comment: reply === null || reply.note === null ? rule : `${rule}; ${reply.note}`,
  };
}

/** One HAR entry: the request as received and the reply sandtrap sent. */
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
    response: harResponse(detail),
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
