// The message headers in the order they were written, with a box filtering them by name or value.
import { useState } from 'preact/hooks';
import { NameValueTable } from '../shared/NameValueTable.tsx';

export function HeadersTable({ headers }: { headers: { name: string; value: string }[] }) {
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  const shown =
    needle === ''
      ? headers
      : headers.filter(
          (h) => h.name.toLowerCase().includes(needle) || h.value.toLowerCase().includes(needle),
        );
  return (
    <div>
      <input
        type="search"
        class="filter"
        aria-label="Filter headers"
        placeholder="Filter headers"
        value={filter}
        onInput={(e) => setFilter(e.currentTarget.value)}
      />
      <NameValueTable caption="Headers" captionHidden rows={shown} />
      {shown.length === 0 && <p class="note">No header matches “{filter}”.</p>}
    </div>
  );
}
