// The attachments of a message: a thumbnail for images, name, type, size and a download link for each.
import { bytes } from '../../ui/time.ts';

type Attachment = { index: number; fileName: string; contentType: string; sizeBytes: number };

// Types every browser decodes in an <img>, where nothing in them can run.
const IMAGE = /^image\/(png|jpe?g|gif|webp|avif|bmp|svg\+xml)$/i;

export function Attachments({ base, attachments }: { base: string; attachments: Attachment[] }) {
  if (attachments.length === 0) return <p class="note">This message has no attachments.</p>;
  return (
    <ul class="attachments">
      {attachments.map((a) => {
        const url = `${base}/attachments/${a.index}`;
        const name = a.fileName || `attachment-${a.index}`;
        return (
          <li key={a.index} class="attachment">
            {IMAGE.test(a.contentType) ? (
              <img src={url} alt={`Preview of ${name}`} loading="lazy" class="thumb" />
            ) : (
              <span class="thumb thumb-file" aria-hidden="true">
                {(name.split('.').pop() ?? '').slice(0, 4).toUpperCase() || 'FILE'}
              </span>
            )}
            <span class="attachment-name">{name}</span>
            <span class="attachment-meta">
              {a.contentType} · {bytes(a.sizeBytes)}
            </span>
            <a href={url} download={name}>
              Download {name}
            </a>
          </li>
        );
      })}
    </ul>
  );
}
