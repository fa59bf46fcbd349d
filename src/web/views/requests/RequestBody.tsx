// The body of a captured request in the form that reads best: JSON pretty-printed, form fields, files, or hex.
import { bytes } from '../../ui/time.ts';
import { base64Bytes, hexDump, HEX_LIMIT } from './hex.ts';
import type { RequestDetail } from './types.ts';
import { NameValueTable } from '../shared/NameValueTable.tsx';

export function RequestBody({ detail, filesBase }: { detail: RequestDetail; filesBase: string }) {
  return (
    <section class="req-body" aria-labelledby="body-heading">
      <h3 id="body-heading">Body</h3>
      {detail.bodyNote !== null && <p class="note">{detail.bodyNote}</p>}
      {detail.bodyTruncated && <p class="note">The body shown is cut; Download raw has every byte.</p>}
      <BodyContent detail={detail} />
      {detail.form.length > 0 && <NameValueTable caption="Form" rows={detail.form} empty="" />}
      {detail.files.length > 0 && (
        <ul class="files" aria-label="Files">
          {detail.files.map((f) => {
            const name = f.fileName ?? `file-${f.index}`;
            return (
              <li key={f.index}>
                <a href={`${filesBase}/${f.index}`} download={name}>
                  {name}
                </a>{' '}
                <span class="note">
                  {f.field === null ? '' : `field ${f.field} · `}
                  {f.contentType} · {bytes(f.sizeBytes)}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function isForm(detail: RequestDetail): boolean {
  const type = detail.headers.find((h) => h.name.toLowerCase() === 'content-type')?.value.toLowerCase() ?? '';
  return type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data');
}

function BodyContent({ detail }: { detail: RequestDetail }) {
  if (detail.body === null || detail.body === '') return <p class="note">No body.</p>;
  // Form bodies read better as the Form table and file list below; multipart text is mostly boundaries.
  if (isForm(detail) && (detail.form.length > 0 || detail.files.length > 0)) return null;
  if (detail.bodyEncoding === 'base64') {
    const data = base64Bytes(detail.body);
    return (
      <>
        <p class="note">
          Binary body ({bytes(data.length)})
          {data.length > HEX_LIMIT ? `; the first ${HEX_LIMIT / 1024} KB in hex` : ''}.
        </p>
        <pre class="source hex" tabIndex={0}>
          {hexDump(data)}
        </pre>
      </>
    );
  }
  if (detail.json !== undefined && detail.json !== null) {
    return (
      <pre class="source json" tabIndex={0}>
        {JSON.stringify(detail.json, null, 2)}
      </pre>
    );
  }
  return (
    <pre class="source" tabIndex={0}>
      {detail.body}
    </pre>
  );
}
