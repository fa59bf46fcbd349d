// Builds one provider send as a real MIME message with nodemailer's MailComposer, so it is parsed, stored and
// shown exactly as mail that came over SMTP. Bcc recipients never reach a header (MailComposer drops Bcc).
import MailComposer from 'nodemailer/lib/mail-composer';
import type { ProviderAddress, ProviderMail, ProviderName } from './providerMail.ts';

export const PROVIDER_HEADER_PREFIX = 'X-Sandtrap-Provider';

const asInput = (list: ProviderAddress[]) => list.map((a) => ({ name: a.name ?? '', address: a.address }));

export async function composeProviderMail(
  provider: ProviderName,
  mail: ProviderMail,
  date: Date,
): Promise<Buffer> {
  const headers: Array<{ key: string; value: string }> = [
    ...mail.headers.map(([key, value]) => ({ key, value })),
    { key: PROVIDER_HEADER_PREFIX, value: provider },
    ...mail.providerFields.map(([name, value]) => ({ key: `${PROVIDER_HEADER_PREFIX}-${name}`, value })),
  ];
  const composer = new MailComposer({
    from: asInput([mail.from])[0],
    to: asInput(mail.to),
    cc: asInput(mail.cc),
    bcc: asInput(mail.bcc),
    replyTo: asInput(mail.replyTo),
    subject: mail.subject,
    date,
    ...(mail.text === undefined ? {} : { text: mail.text }),
    ...(mail.html === undefined ? {} : { html: mail.html }),
    attachments: mail.attachments.map((a) => ({
      filename: a.filename,
      content: a.content,
      ...(a.contentType === undefined ? {} : { contentType: a.contentType }),
      ...(a.contentId === undefined ? {} : { cid: a.contentId }),
      ...(a.disposition === undefined ? {} : { contentDisposition: a.disposition }),
    })),
    headers,
    // Content comes from the request only: never read a file or fetch a URL named in it.
    disableFileAccess: true,
    disableUrlAccess: true,
    newline: 'windows',
  });
  return composer.compile().build();
}
