// Form bodies for the providers that take them (Mailgun): urlencoded or multipart, fields in order and every
// file part with its bytes. A body busboy cannot read is `undefined`, which the caller refuses.
import busboy from 'busboy';

export interface FormFile {
  field: string;
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface FormBody {
  fields: Array<[string, string]>;
  files: FormFile[];
}

const LIMITS = { fields: 2000, fieldSize: 16 * 1024 * 1024, files: 1000 };

export function readForm(contentType: string, body: Buffer): Promise<FormBody | undefined> {
  if (/^application\/x-www-form-urlencoded\b/i.test(contentType))
    return Promise.resolve({ fields: [...new URLSearchParams(body.toString('utf8'))], files: [] });
  return new Promise((resolve) => {
    const out: FormBody = { fields: [], files: [] };
    let failed = false;
    try {
      const parser = busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: LIMITS,
      });
      parser.on('field', (name, value, info) => {
        if (info.valueTruncated) failed = true;
        out.fields.push([name, value]);
      });
      parser.on('file', (field, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('limit', () => (failed = true));
        stream.on('end', () =>
          out.files.push({
            field,
            filename: info.filename ?? 'file',
            contentType: info.mimeType,
            content: Buffer.concat(chunks),
          }),
        );
        stream.on('error', () => (failed = true));
      });
      parser.on('fieldsLimit', () => (failed = true));
      parser.on('filesLimit', () => (failed = true));
      parser.on('close', () => resolve(failed ? undefined : out));
      parser.on('error', () => resolve(undefined));
      parser.end(body);
    } catch {
      resolve(undefined); // a malformed Content-Type
    }
  });
}
