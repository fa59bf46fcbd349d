// Parses a raw RFC 5322 message with mailparser into the fields the API serves. Attachments are streamed
// and only counted, so parsing never holds more than the raw message and its text parts. Mail mailparser
// cannot take whole (thousands of parts, deep nesting, header sections over its limit) is read part by part
// instead, and a message that cannot be read at all is still kept: parsing never refuses mail.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import libmime from 'libmime';
import { MailParser, type AddressObject, type EmailAddress } from 'mailparser';
import type { AttachmentInfo, NameValue } from '../store/schema.ts';
import { htmlToText } from '../text/htmlToText.ts';
import { walkMime } from './mimeWalk.ts';

export interface ParsedMessage {
  from: string | null;
  to: string[];
  subject: string | null;
  textBody: string | null;
  htmlBody: string | null;
  preview: string | null;
  headers: NameValue[];
  attachments: AttachmentInfo[];
  /** Why the fields above are incomplete or empty; null when the whole message was read. */
  parseError: string | null;
}

const PREVIEW_LENGTH = 200;

/**
 * mailparser reads the message in one pass only while its splitter surely makes fewer parts than its own limit
 * (1,000): at most this many lines that start like a delimiter or a Content-Type/-Disposition field (a part
 * other than the first starts at a delimiter, or inside an inline embedded message, which needs those fields).
 * Its part numbering copies every ancestor's number into each part and it walks the finished tree recursively:
 * 3,000 nested levels overflowed the stack, 50,000 ran the process out of memory.
 */
const MAX_WHOLE_PARSE_PARTS = 990;
/** mailparser's own limit on one header section (mailsplit's default); larger ones are read part by part. */
const WHOLE_PARSE_MAX_HEAD = 1024 * 1024;
/**
 * Read part by part, a header section keeps its fields up to these bounds, and past them only the fields that
 * say what the message is (and how its body is encoded). mailparser's header handling runs in one turn of the
 * event loop: 2.5 million one-line fields (10 MB) held it for 3 s.
 */
const MAX_HEADER_BYTES = 2 * 1024 * 1024;
const MAX_HEADER_LINES = 20_000;
const KEY_FIELD_MAX_BYTES = 64 * 1024;
const KEY_FIELDS = new Set([
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'mime-version',
  'from',
  'to',
  'cc',
  'subject',
  'date',
  'message-id',
  'reply-to',
  'sender',
]);
/** What mailparser reads from a part's own header block. */
const PART_FIELDS = ['content-type', 'content-disposition', 'content-transfer-encoding', 'content-id'];
const initialsOf = (names: Iterable<string>) =>
  new Set([...names].flatMap((name) => [name.charCodeAt(0), name.toUpperCase().charCodeAt(0)]));
/** First letters of the names above, either case. */
const KEY_INITIALS = initialsOf(KEY_FIELDS);
const PART_INITIALS = initialsOf(PART_FIELDS);
/** Bytes String.prototype.trim removes from a latin1 field name (mailsplit trims names). */
const TRIMMED = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]);
/** Parts handed to one mailparser run when reading part by part: its tree stays small (the limit is 1,000). */
const PARTS_PER_RUN = 500;
/** Large enough for any header block of a message within the 10 MB SMTP limit. */
const PART_RUN_MAX_HEAD = 16 * 1024 * 1024;

const MIME_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i;

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

/** `<logo@x>` -> `logo@x`, as a `cid:` URL names it; null when the part has none. */
function bareContentId(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const bare = storable(value.trim().replace(/^<(.*)>$/s, '$1'));
  return bare === '' ? null : bare;
}

function defaultFileName(index: number, contentType: unknown): string {
  const ext = typeof contentType === 'string' ? libmime.detectExtension(contentType) : 'bin';
  return `attachment-${index + 1}.${ext}`;
}

export interface ParsedParts {
  headerLines: Array<{ key: string; line: string }>;
  headers: Map<string, unknown>;
  /** The text parts, joined; undefined when the message has none. */
  text: string | undefined;
  html: string | undefined;
  attachments: AttachmentInfo[];
  /** What could not be read, in words. */
  problems: string[];
  /** The decoded bytes of the attachment asked for. */
  content: Buffer | undefined;
}

interface RunOptions {
  maxHeadSize: number;
  /** Index of the first attachment this run finds, in the whole message. */
  firstIndex: number;
  /** The attachment (whole-message index) whose bytes to keep. */
  want: number | undefined;
  /** Only the header section matters: text and attachments are drained and dropped. */
  headersOnly?: boolean;
}

interface Run extends Omit<ParsedParts, 'problems'> {
  error: Error | undefined;
}

/** One mailparser pass over `input`. Malformed MIME never throws: whatever was parsed comes back with the error. */
function mailparse(input: Buffer, options: RunOptions): Promise<Run> {
  return new Promise((resolve) => {
    const parser = new MailParser({
      skipTextToHtml: true,
      // The HTML part's text is ours to make (src/core/text): mailparser's html-to-text held the event loop
      // for 1.8 s on a 9 MB HTML-only message.
      skipHtmlToText: true,
      skipImageLinks: true,
      keepCidLinks: true,
      maxHeadSize: options.maxHeadSize,
    } as object);
    const run: Run = {
      headerLines: [],
      headers: new Map(),
      text: undefined,
      html: undefined,
      attachments: [],
      content: undefined,
      error: undefined,
    };
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      run.error = error;
      if (options.want !== undefined && run.attachments.some((a) => a.index === options.want))
        run.content = Buffer.concat(chunks);
      resolve(run);
    };
    parser.on('headers', (headers: Map<string, unknown>) => {
      run.headers = headers;
    });
    parser.on('headerLines', (lines: Array<{ key: string; line: string }>) => {
      run.headerLines = lines;
    });
    parser.on('data', (data: Record<string, unknown>) => {
      if (data.type === 'text') {
        if (options.headersOnly) return;
        if (typeof data.text === 'string') run.text = data.text;
        if (typeof data.html === 'string') run.html = data.html;
        return;
      }
      if (data.type !== 'attachment') return;
      const content = data.content as Readable;
      // mailparser waits for release() before it continues with the next part.
      const release = data.release as () => void;
      content.once('end', release);
      content.once('error', release);
      if (options.headersOnly) {
        content.resume();
        return;
      }
      const index = options.firstIndex + run.attachments.length;
      const contentType = data.contentType as string | undefined;
      const info: AttachmentInfo = {
        index,
        fileName: storable((data.filename as string | undefined) ?? defaultFileName(index, contentType)),
        // Downloads send it as the Content-Type header: anything but a type/subtype token is unknown content.
        contentType:
          contentType !== undefined && MIME_TYPE.test(contentType) ? contentType : 'application/octet-stream',
        sizeBytes: 0,
        contentId: bareContentId(data.contentId),
      };
      run.attachments.push(info);
      content.on('data', (chunk: Buffer) => {
        if (settled) return;
        info.sizeBytes += chunk.length;
        if (index === options.want) chunks.push(chunk);
      });
    });
    parser.on('end', () => finish());
    parser.on('error', (err: Error) => finish(err));
    parser.end(input);
  });
}

/**
 * Whether mailparser can take the message in one pass: few enough parts for its limit (an upper bound counted
 * on the raw lines, see MAX_WHOLE_PARSE_PARTS), and not ending inside the header block of an inline
 * message/rfc822 part, on which its parser never finishes.
 */
function wholeParseFits(text: string): boolean {
  let parts = 0;
  const starts = /(?:^|\n)(?:\r?--|[\s\u00a0]*content-(?:type|disposition)[\s\u00a0]*:)/gi;
  while (starts.exec(text) !== null) if (++parts > MAX_WHOLE_PARSE_PARTS) return false;
  const lastBlank = Math.max(
    text.lastIndexOf('\n\n') + 2,
    text.lastIndexOf('\n\r\n') + 3,
    text.startsWith('\r\n') ? 2 : text.startsWith('\n') ? 1 : 0,
  );
  return !/content-disposition/i.test(text.slice(lastBlank));
}

/** A field of a header block: its bytes [start, end) with folded lines, and how many lines it has. */
interface HeaderField {
  start: number;
  end: number;
  lines: number;
}

/** Calls `each` for the fields of a header block, in order; folded lines belong to their field. */
function forEachField(block: Buffer, each: (field: HeaderField) => void): void {
  let pos = 0;
  let current: HeaderField | undefined;
  while (pos < block.length) {
    const nl = block.indexOf(0x0a, pos);
    const end = nl === -1 ? block.length : nl + 1;
    if (end - pos === 1 || (end - pos === 2 && block[pos] === 0x0d && nl !== -1)) break;
    const first = block[pos];
    if (current !== undefined && (first === 0x20 || first === 0x09)) {
      current.end = end;
      current.lines++;
    } else {
      if (current !== undefined) each(current);
      current = { start: pos, end, lines: 1 };
    }
    pos = end;
  }
  if (current !== undefined) each(current);
}

/**
 * The field's name as mailsplit reads it (up to the first colon, trimmed, lower-cased) if it is short and starts
 * with one of `initials`; '' otherwise. The check on the first letter keeps floods of other fields cheap.
 */
function fieldName(block: Buffer, field: HeaderField, initials: ReadonlySet<number>): string {
  const stop = Math.min(field.end, field.start + 64);
  let i = field.start;
  while (i < stop && TRIMMED.has(block[i] as number)) i++;
  if (!initials.has(block[i] as number)) return '';
  for (; i < stop; i++) {
    if (block[i] === 0x3a) return block.toString('latin1', field.start, i).trim().toLowerCase();
  }
  return '';
}

/** The field as sent, ending in a line break. */
function fieldBytes(block: Buffer, field: HeaderField): Buffer {
  const bytes = block.subarray(field.start, field.end);
  return bytes[bytes.length - 1] === 0x0a ? bytes : Buffer.concat([bytes, Buffer.from('\r\n')]);
}

/** The fields of the top-level header block within the bounds above, and a note on what was left out. */
function keptHeaderFields(block: Buffer): { bytes: Buffer; note: string | undefined } {
  const kept: Buffer[] = [];
  const seenPastLimit = new Set<string>();
  let bytes = 0;
  let lines = 0;
  let dropped = 0;
  let droppedBytes = 0;
  forEachField(block, (field) => {
    const size = field.end - field.start;
    if (bytes + size <= MAX_HEADER_BYTES && lines + field.lines <= MAX_HEADER_LINES) {
      kept.push(fieldBytes(block, field));
      bytes += size;
      lines += field.lines;
      return;
    }
    const name = size <= KEY_FIELD_MAX_BYTES ? fieldName(block, field, KEY_INITIALS) : '';
    if (KEY_FIELDS.has(name) && !seenPastLimit.has(name)) {
      seenPastLimit.add(name);
      kept.push(fieldBytes(block, field));
      return;
    }
    dropped++;
    droppedBytes += size;
  });
  const note =
    dropped === 0
      ? undefined
      : `${dropped} header field${dropped === 1 ? '' : 's'} (${droppedBytes} bytes) past the first ` +
        `${MAX_HEADER_LINES} lines or ${MAX_HEADER_BYTES / (1024 * 1024)} MB of the header section were not kept`;
  return { bytes: Buffer.concat(kept), note };
}

/** The fields of a part's header block that say how to read it; the first of each, as mailparser uses. */
function partFields(block: Buffer): Buffer {
  const kept = new Map<string, Buffer>();
  forEachField(block, (field) => {
    const name = fieldName(block, field, PART_INITIALS);
    if (PART_FIELDS.includes(name) && !kept.has(name)) kept.set(name, fieldBytes(block, field));
  });
  return Buffer.concat([...kept.values()]);
}

/** A delimiter that no line of `raw` starts with. */
function flatBoundary(raw: Buffer): string {
  let boundary = `sandtrap-part-${createHash('sha256').update(raw).digest('hex').slice(0, 32)}`;
  while (raw.includes(boundary)) boundary += '-';
  return boundary;
}

/**
 * Reads a message mailparser cannot take whole: the top-level header section on its own, then the content parts
 * found by walkMime, PARTS_PER_RUN at a time, each run a flat multipart/alternative of them (so every text part
 * counts as text and every HTML part as HTML, as in the message).
 */
async function readPartByPart(raw: Buffer, want: number | undefined): Promise<ParsedParts> {
  const parts: ParsedParts = {
    headerLines: [],
    headers: new Map(),
    text: undefined,
    html: undefined,
    attachments: [],
    problems: [],
    content: undefined,
  };
  const texts: string[] = [];
  const htmls: string[] = [];
  const boundary = flatBoundary(raw);
  let batch: Buffer[] = [];
  let batchParts = 0;
  const readBatch = async () => {
    if (batchParts === 0) return;
    batch.push(Buffer.from(`--${boundary}--\r\n`));
    const run = await mailparse(
      Buffer.concat([
        Buffer.from(`Content-Type: multipart/alternative; boundary="${boundary}"\r\n\r\n`),
        ...batch,
      ]),
      { maxHeadSize: PART_RUN_MAX_HEAD, firstIndex: parts.attachments.length, want },
    );
    batch = [];
    batchParts = 0;
    if (run.text !== undefined) texts.push(run.text);
    if (run.html !== undefined) htmls.push(run.html);
    parts.attachments.push(...run.attachments);
    parts.content ??= run.content;
    if (run.error !== undefined)
      parts.problems.push(`part of the body could not be read (${run.error.message})`);
  };
  for (const item of walkMime(raw)) {
    if (item.kind === 'progress') {
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    if (item.kind === 'root') {
      const { bytes, note } = keptHeaderFields(item.header);
      if (note !== undefined) parts.problems.push(note);
      const head = await mailparse(Buffer.concat([bytes, Buffer.from('\r\n')]), {
        maxHeadSize: PART_RUN_MAX_HEAD,
        firstIndex: 0,
        want: undefined,
        headersOnly: true,
      });
      parts.headerLines = head.headerLines;
      parts.headers = head.headers;
      if (head.error !== undefined)
        parts.problems.push(`the header section could not be read (${head.error.message})`);
      continue;
    }
    batch.push(
      Buffer.from(`--${boundary}\r\n`),
      partFields(item.header),
      Buffer.from('\r\n'),
      item.body,
      Buffer.from('\r\n'),
    );
    if (++batchParts >= PARTS_PER_RUN) await readBatch();
  }
  await readBatch();
  if (texts.length > 0) parts.text = texts.join('\n');
  if (htmls.length > 0) parts.html = htmls.join('<br/>\n');
  return parts;
}

/** A text/plain part exists when any part header says so, or the message has no Content-Type at all. */
function hasTextPart(text: string, headerLines: Array<{ key: string }>): boolean {
  if (!headerLines.some((h) => h.key === 'content-type')) return true;
  return /^content-type:[ \t]*text\/plain/im.test(text);
}

/**
 * Runs mailparser over `raw`, in one pass when it can take the message whole, else part by part; the
 * attachment `want` (its index) comes back with its decoded bytes. Malformed MIME never throws.
 */
export async function runParser(raw: Uint8Array, want?: number): Promise<ParsedParts> {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const text = bytes.toString('latin1');
  if (wholeParseFits(text)) {
    const run = await mailparse(bytes, { maxHeadSize: WHOLE_PARSE_MAX_HEAD, firstIndex: 0, want });
    if (run.error === undefined) {
      const html = run.html === '' ? undefined : run.html;
      // mailparser makes an HTML-only message's text from the HTML (here: empty); the API reports only a real text part.
      const realText = html === undefined || hasTextPart(text, run.headerLines);
      return { ...run, html, text: realText ? run.text : undefined, problems: [] };
    }
  }
  return readPartByPart(bytes, want);
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000, which broken mail does contain, and jsonb refuses a lone
 * UTF-16 surrogate, which an encoded-word or charset can decode to: U+0000 carries no meaning and goes, a lone
 * surrogate becomes U+FFFD.
 */
function storable<T extends string | null>(value: T): T {
  return (value === null ? null : value.replaceAll('\u0000', '').toWellFormed()) as T;
}

export async function parseMessage(raw: Uint8Array, envelopeFrom: string | null): Promise<ParsedMessage> {
  let m: ParsedMessage;
  try {
    m = await parseParts(raw, envelopeFrom);
  } catch (err) {
    m = unreadable(envelopeFrom, err);
  }
  return {
    from: storable(m.from),
    to: m.to.map(storable),
    subject: storable(m.subject),
    textBody: storable(m.textBody),
    htmlBody: storable(m.htmlBody),
    preview: storable(m.preview),
    headers: m.headers.map((h) => ({ name: storable(h.name), value: storable(h.value) })),
    attachments: m.attachments.map((a) => ({
      ...a,
      fileName: storable(a.fileName),
      contentType: storable(a.contentType),
    })),
    parseError: storable(m.parseError),
  };
}

/** The fields of a message the parser could not read: none, and why. */
function unreadable(envelopeFrom: string | null, err: unknown): ParsedMessage {
  const reason = err instanceof Error ? err.message : String(err);
  return {
    from: envelopeFrom,
    to: [],
    subject: null,
    textBody: null,
    htmlBody: null,
    preview: null,
    headers: [],
    attachments: [],
    parseError: `The message could not be parsed (${reason}); only its raw source is kept.`,
  };
}

async function parseParts(raw: Uint8Array, envelopeFrom: string | null): Promise<ParsedMessage> {
  const parts = await runParser(raw);
  const headers = headerList(parts.headerLines);
  const first = (name: string) => headers.find((h) => h.name.toLowerCase() === name)?.value;
  const subject = parts.headers.get('subject');
  const html = parts.html ?? null;
  const text = parts.text ?? null;
  return {
    from: first('from') ?? envelopeFrom,
    to: flattenAddresses(parts.headers.get('to') as AddressObject | AddressObject[] | undefined).map(
      formatAddress,
    ),
    subject: typeof subject === 'string' ? subject : null,
    textBody: text,
    htmlBody: html,
    // Twice the preview's length in UTF-16 units holds at least its length in code points.
    preview: foldPreview(text ?? (html === null ? null : htmlToText(html, 2 * PREVIEW_LENGTH))),
    headers,
    attachments: parts.attachments,
    parseError:
      parts.problems.length === 0 ? null : `${parts.problems.join('; ')}. The raw source has every byte.`,
  };
}
