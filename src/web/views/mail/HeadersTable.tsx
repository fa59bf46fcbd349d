// The message headers in the order they were written, with a box filtering them by name or value.
import { useState } from 'preact/hooks';

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
      <table class="kv">
        <caption class="visually-hidden">Headers</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((h, i) => (
            <tr key={i}>
              <th scope="row">{h.name}</th>
              <td>{h.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length === 0 && <p class="note">No header matches “{filter}”.</p>}
    </div>
  );
}
