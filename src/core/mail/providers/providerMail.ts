// The provider-independent form of one mail sent through a provider's HTTP API (SendGrid, Postmark, Resend…):
// what each adapter in src/rest/providers parses its JSON or form into, and core turns into real MIME.
import addressparser from 'nodemailer/lib/addressparser';

/** The providers whose send APIs sandtrap speaks, under `/providers/<name>` on the API listener. */
export const PROVIDERS = ['sendgrid', 'postmark', 'resend', 'mailgun', 'ses'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ProviderAddress {
  name?: string;
  address: string;
}

export interface ProviderAttachment {
  filename: string;
  content: Buffer;
  contentType?: string;
  /** Content-ID without angle brackets; an inline image the HTML refers to as `cid:<contentId>`. */
  contentId?: string;
  disposition?: 'attachment' | 'inline';
}

export interface ProviderMail {
  from: ProviderAddress;
  to: ProviderAddress[];
  cc: ProviderAddress[];
  /** Recipients kept in `capturedFor` only, never in a header. */
  bcc: ProviderAddress[];
  replyTo: ProviderAddress[];
  subject: string;
  text?: string;
  html?: string;
  attachments: ProviderAttachment[];
  /** The sender's own headers, in order. */
  headers: Array<[name: string, value: string]>;
  /** The provider's tags and metadata, kept as `X-Sandtrap-Provider-<name>` headers (names like `Tag`). */
  providerFields: Array<[name: string, value: string]>;
}

/** A provider's field that may be one address, a list, or a comma-separated string ("Ann <a@x.test>, b@x.test"). */
export function parseAddressList(value: string | readonly string[]): ProviderAddress[] {
  const items = typeof value === 'string' ? [value] : value;
  const out: ProviderAddress[] = [];
  for (const item of items) {
    for (const parsed of addressparser(item, { flatten: true })) {
      if (parsed.address === undefined || parsed.address === '') continue;
      out.push(parsed.name ? { name: parsed.name, address: parsed.address } : { address: parsed.address });
    }
  }
  return out;
}

/** Close to what the providers accept: one @, no spaces or angle brackets, a dot-free local part allowed. */
const ADDRESS = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+$/;

export function isValidAddress(address: string): boolean {
  return address.length <= 320 && ADDRESS.test(address);
}
