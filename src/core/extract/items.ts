// Adapts stored messages and captured requests to the inputs of the extraction functions.
import type { MessageDetail } from '../messages.ts';
import type { RequestDetail } from '../requests.ts';
import type { EmailItem, RequestItem } from './fromBody.ts';
import type { OtpInput } from './otp.ts';

export function otpInputOf(message: Pick<MessageDetail, 'subject' | 'textBody' | 'htmlBody'>): OtpInput {
  return { subject: message.subject, text: message.textBody, html: message.htmlBody };
}

export function emailItemOf(
  message: Pick<MessageDetail, 'subject' | 'textBody' | 'htmlBody' | 'headers'>,
): EmailItem {
  return {
    kind: 'email',
    subject: message.subject,
    text: message.textBody,
    html: message.htmlBody,
    headers: message.headers,
  };
}

export function requestItemOf(
  request: Pick<RequestDetail, 'body' | 'bodyEncoding' | 'json' | 'headers' | 'form'>,
): RequestItem {
  return {
    kind: 'request',
    // A base64 body is binary: there is no text to search.
    body: request.bodyEncoding === 'base64' ? null : request.body,
    json: request.json,
    headers: request.headers,
    form: request.form,
  };
}
