// The message source as received, fetched as text; a very large one shows its start and offers the download.
import { useEffect, useState } from 'preact/hooks';
import { ErrorMessage, Loading } from '../../ui/Empty.tsx';

// Past this the <pre> costs more to lay out than a reader gains; the download has every byte.
const SHOWN = 512 * 1024;

export function RawSource({ url, size }: { url: string; size: number }) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    setText(null);
    setError(null);
    fetch(url, { credentials: 'same-origin', signal: controller.signal })
      .then(async (res) => {
        if (!res.ok)
          throw new Error(`The server answered ${res.status} for the raw source; reload to try again.`);
        setText(await res.text());
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setError(err instanceof Error ? err.message : String(err));
      });
    return () => controller.abort();
  }, [url]);
  return (
    <div>
      <p class="tab-actions">
        <a href={url} download>
          Download .eml
        </a>
      </p>
      {error !== null ? (
        <ErrorMessage>{error}</ErrorMessage>
      ) : text === null ? (
        <Loading label="Loading raw source…" />
      ) : (
        <>
          {text.length > SHOWN && (
            <p class="note">
              Showing the first {Math.round(SHOWN / 1024)} KB of {Math.round(size / 1024)} KB; download the
              .eml for all of it.
            </p>
          )}
          <pre class="source" tabIndex={0}>
            {text.length > SHOWN ? text.slice(0, SHOWN) : text}
          </pre>
        </>
      )}
    </div>
  );
}
