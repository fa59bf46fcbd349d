// extractOtp end to end through the ingest parser: tune-part mails built as real MIME (nodemailer's MailComposer,
// quoted-printable and base64, encoded-word subjects) and parsed by parseMessage must yield the same code as the
// raw fixture, so charset, transfer-encoding and HTML-to-text drift cannot hide a code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { extractOtp, type OtpInput } from '../../src/core/extract/index.ts';
import { parseMessage } from '../../src/core/mail/parseMessage.ts';
import type { OtpFixture } from '../helpers/otpReport.ts';

/** The tune part only; heldout-*.json is never read here. */
const items = ['corpus.json', 'tune-a.json', 'tune-b.json'].flatMap(
  (name) =>
    JSON.parse(readFileSync(new URL(`../fixtures/otp/${name}`, import.meta.url), 'utf8')) as OtpFixture[],
);

const SAMPLE = 30;

/** 30 items taken round-robin across languages (then by id), so every script and layout is represented. */
function sample(all: OtpFixture[]): OtpFixture[] {
  const byLang = new Map<string, OtpFixture[]>();
  for (const item of [...all].sort((a, b) => a.id.localeCompare(b.id))) {
    const lang = item.lang ?? '(none)';
    byLang.set(lang, [...(byLang.get(lang) ?? []), item]);
  }
  const queues = [...byLang.values()];
  const out: OtpFixture[] = [];
  for (let round = 0; out.length < SAMPLE && queues.some((q) => q.length > round); round++) {
    for (const q of queues) {
      const item = q[round];
      if (item !== undefined && out.length < SAMPLE) out.push(item);
    }
  }
  return out;
}

async function mimeOf(item: OtpFixture, k: number): Promise<Uint8Array> {
  const composer = new MailComposer({
    from: 'Sender <noreply@sender.example>',
    to: 'user@sandbox.example',
    subject: item.subject ?? undefined,
    text: item.text ?? undefined,
    html: item.html ?? undefined,
    // Alternate the two encodings mail really uses for non-ASCII bodies.
    textEncoding: k % 2 === 0 ? 'quoted-printable' : 'base64',
  });
  return new Uint8Array(await composer.compile().build());
}

const summary = (input: OtpInput): string => {
  const r = extractOtp(input);
  return `${r.status} ${r.code ?? ''}`;
};

describe('extractOtp on parsed MIME', () => {
  const chosen = sample(items);

  it('samples 30 tune items across languages and layouts', () => {
    assert.equal(chosen.length, SAMPLE);
    assert.ok(new Set(chosen.map((i) => i.lang)).size >= 5);
    assert.ok(chosen.filter((i) => i.expected.code !== null).length >= 15);
    assert.ok(chosen.some((i) => i.html === null) && chosen.some((i) => i.text === null));
    assert.ok(chosen.some((i) => i.html !== null && i.text !== null));
  });

  it('gives the same code on the parsed subject, text and HTML as on the raw item', async () => {
    for (const [k, item] of chosen.entries()) {
      const parsed = await parseMessage(await mimeOf(item, k), null);
      assert.equal(parsed.parseError, null, item.id);
      assert.equal(parsed.subject, item.subject, `${item.id}: subject`);
      assert.equal(parsed.htmlBody === null, item.html === null, `${item.id}: html part`);
      assert.equal(parsed.textBody === null, item.text === null, `${item.id}: text part`);
      const raw = summary({ subject: item.subject, text: item.text, html: item.html });
      const viaMime = summary({ subject: parsed.subject, text: parsed.textBody, html: parsed.htmlBody });
      assert.equal(viaMime, raw, item.id);
    }
  });
});
