// Parses a raw RFC 5322 message with mailparser into the fields the API serves. Attachments are streamed
// and only counted, so parsing never holds more than the raw message and its text parts.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import libmime from 'libmime';
import { MailParser, type AddressObject, type EmailAddress } from 'mailparser';
import type { AttachmentInfo, NameValue } from '../store/schema.ts';

export interface ParsedMessage {
  from: string | null;
  to: string[];
  subject: string | null;
  textBody: string | null;
  htmlBody: string | null;
  preview: string | null;
  headers: NameValue[];
  attachments: AttachmentInfo[];
}

const PREVIEW_LENGTH = 200;

/** Header bytes arrive as a binary string; most senders write UTF-8 in them even when they should not. */
function headerText(binary: string): string {
  const bytes = Buffer.from(binary, 'latin1');
  const utf8 = bytes.toString('utf8');
  return utf8.includes('\uFFFD') ? binary : utf8;
}

function decodeWords(value: string): string {
  try {
    return libmime.decodeWords(value);
  } catch {
    return value;
  }
}

/** mailparser's header lines in original order, unfolded, encoded-words decoded. */
function headerList(lines: Array<{ key: string; line: string }>): NameValue[] {
  const out: NameValue[] = [];
  for (const { line } of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = headerText(line.slice(colon + 1))
      .replace(/\r?\n(?=[ \t])/g, '')
      .trim();
    out.push({ name, value: decodeWords(value) });
  }
  return out;
}

function flattenAddresses(obj: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const list = obj === undefined ? [] : Array.isArray(obj) ? obj : [obj];
  const walk = (addrs: EmailAddress[]): EmailAddress[] =>
    addrs.flatMap((a) => (a.group !== undefined ? walk(a.group) : [a]));
  return list.flatMap((o) => walk(o.value));
}

function formatAddress(a: EmailAddress): string {
  const address = a.address ?? '';
  return a.name !== '' ? `${a.name} <${address}>` : address;
}

/**
 * The text with whitespace runs folded to one space, trimmed, cut to PREVIEW_LENGTH code points. Only the start
 * of the text is read: folding a whole body and splitting it into code points took 4% of the SMTP path's CPU.
 */
export function foldPreview(text: string | null): string | null {
  if (text === null) return null;
  let preview = '';
  let points = 0;
  for (const [word] of text.matchAll(/\S+/g)) {
    if (preview !== '') {
      preview += ' ';
      points++;
    }
    for (const char of word) {
      if (points >= PREVIEW_LENGTH) break;
      preview += char;
      points++;
    }
    if (points >= PREVIEW_LENGTH) break;
  }
  return preview === '' ? null : preview;
}

/** A small html-to-text for previews of HTML-only mail: drops head/style/script, keeps visible text. */
export function htmlToText(html: string): string {
  return libmime
    .decodeWords(
      html
        .replace(/<(head|style|script|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
        .replace(/<br\s*\/?>|<\/(p|div|tr|li|h[1-6])>/gi, '\n')
        .replace(/<[^>]+>/g, ' '),
    )
    .replace(/&nbsp;/gi, ' ')
    .replace(/&amp;/gi, '&')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&#x([0-9a-f]+);/gi, (_m, h: string) => String.fromCodePoint(Number.parseInt(h, 16)));
}

function defaultFileName(index: number, contentType: unknown): string {
  const ext = typeof contentType === 'string' ? libmime.detectExtension(contentType) : 'bin';
  return `attachment-${index + 1}.${ext}`;
}

interface ParsedParts {
  headerLines: Array<{ key: string; line: string }>;
  headers: Map<string, unknown>;
  text: string | undefined;
  html: string | false | undefined;
  attachments: AttachmentInfo[];
}

/**
 * Runs mailparser over `raw`. Each attachment's bytes are streamed through `onAttachmentChunk` (by default
 * only counted). Malformed MIME never throws: whatever was parsed is returned.
 */
export function runParser(
  raw: Uint8Array,
  onAttachmentChunk?: (index: number, chunk: Buffer) => void,
): Promise<ParsedParts> {
  return new Promise((resolve) => {
    const parser = new MailParser({
      skipTextToHtml: true,
      skipImageLinks: true,
      keepCidLinks: true,
    } as object);
    const parts: ParsedParts = {
      headerLines: [],
      headers: new Map(),
      text: undefined,
      html: undefined,
      attachments: [],
    };
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      resolve(parts);
    };
    parser.on('headers', (headers: Map<string, unknown>) => {
      parts.headers = headers;
    });
    parser.on('headerLines', (lines: Array<{ key: string; line: string }>) => {
      parts.headerLines = lines;
    });
    parser.on('data', (data: Record<string, unknown>) => {
      if (data.type === 'text') {
        if (typeof data.text === 'string') parts.text = data.text;
        if (typeof data.html === 'string') parts.html = data.html;
        return;
      }
      if (data.type !== 'attachment') return;
      const index = parts.attachments.length;
      const info: AttachmentInfo = {
        index,
        fileName: (data.filename as string | undefined) ?? defaultFileName(index, data.contentType),
        contentType: (data.contentType as string | undefined) ?? 'application/octet-stream',
        sizeBytes: 0,
      };
      parts.attachments.push(info);
      const content = data.content as Readable;
      // mailparser waits for release() before it continues with the next part.
      const release = data.release as () => void;
      content.on('data', (chunk: Buffer) => {
        info.sizeBytes += chunk.length;
        onAttachmentChunk?.(index, chunk);
      });
      content.once('end', release);
      content.once('error', release);
    });
    parser.on('end', finish);
    parser.on('error', finish);
    parser.end(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  });
}

/** PostgreSQL text and jsonb cannot hold U+0000, which broken mail does contain; it carries no meaning. */
function stripNul<T extends string | null>(value: T): T {
  return (value === null ? null : value.replaceAll('\u0000', '')) as T;
}

export async function parseMessage(raw: Uint8Array, envelopeFrom: string | null): Promise<ParsedMessage> {
  const m = await parseParts(raw, envelopeFrom);
  return {
    from: stripNul(m.from),
    to: m.to.map(stripNul),
    subject: stripNul(m.subject),
    textBody: stripNul(m.textBody),
    htmlBody: stripNul(m.htmlBody),
    preview: stripNul(m.preview),
    headers: m.headers.map((h) => ({ name: stripNul(h.name), value: stripNul(h.value) })),
    attachments: m.attachments.map((a) => ({
      ...a,
      fileName: stripNul(a.fileName),
      contentType: stripNul(a.contentType),
    })),
  };
}

async function parseParts(raw: Uint8Array, envelopeFrom: string | null): Promise<ParsedMessage> {
  const parts = await runParser(raw);
  const headers = headerList(parts.headerLines);
  const first = (name: string) => headers.find((h) => h.name.toLowerCase() === name)?.value;
  const subject = parts.headers.get('subject');
  const html = typeof parts.html === 'string' && parts.html !== '' ? parts.html : null;
  // mailparser fills `text` from the HTML when there is no text part; the API reports only a real text part.
  const text =
    typeof parts.text === 'string' && (html === null || hasTextPart(raw, first)) ? parts.text : null;
  return {
    from: first('from') ?? envelopeFrom,
    to: flattenAddresses(parts.headers.get('to') as AddressObject | AddressObject[] | undefined).map(
      formatAddress,
    ),
    subject: typeof subject === 'string' ? subject : null,
    textBody: text,
    htmlBody: html,
    preview: foldPreview(text ?? (html === null ? null : htmlToText(html))),
    headers,
    attachments: parts.attachments,
  };
}

/** A text/plain part exists when any part header says so, or the message has no Content-Type at all. */
function hasTextPart(raw: Uint8Array, header: (name: string) => string | undefined): boolean {
  if (header('content-type') === undefined) return true;
  return /^content-type:[ \t]*text\/plain/im.test(
    Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1'),
  );
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
