// Id and timestamp formats and the sorted field lists of the REST message and request shapes.
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const MESSAGE_SUMMARY_KEYS = [
  'attachmentCount',
  'capturedFor',
  'from',
  'id',
  'isRead',
  'preview',
  'receivedAt',
  'sizeBytes',
  'subject',
  'to',
  'traceparent',
];
export const MESSAGE_DETAIL_KEYS = [
  'attachments',
  'capturedFor',
  'from',
  'headers',
  'htmlBody',
  'id',
  'isRead',
  'links',
  'otp',
  'parseError',
  'receivedAt',
  'sizeBytes',
  'subject',
  'textBody',
  'to',
  'traceparent',
];

export const REQUEST_SUMMARY_KEYS = [
  'id',
  'isRead',
  'method',
  'mockName',
  'mockStatusCode',
  'path',
  'query',
  'receivedAt',
  'sizeBytes',
  'sourceIp',
  'traceparent',
];
export const REQUEST_DETAIL_KEYS = [
  ...REQUEST_SUMMARY_KEYS,
  'body',
  'bodyDecoding',
  'bodyEncoding',
  'bodyNote',
  'bodyTruncated',
  'contentEncoding',
  'files',
  'form',
  'headers',
  'json',
  'queryParams',
  'redactedCookies',
  'response',
].sort();
