// A captioned name/value table, for query parameters, headers and form fields of requests and mail.

/** Rows exactly as sent: order, case and repeated names kept. */
export function NameValueTable({
  caption,
  captionHidden = false,
  rows,
  empty,
}: {
  caption: string;
  /** The caption names the table for screen readers only (where a tab already says what it is). */
  captionHidden?: boolean;
  rows: { name: string; value: string }[];
  /** Said in the table when it has no rows; without it an empty table keeps its column headings. */
  empty?: string;
}) {
  return (
    <table class="kv">
      <caption class={captionHidden ? 'visually-hidden' : undefined}>{caption}</caption>
      {rows.length === 0 && empty !== undefined ? (
        <tbody>
          <tr>
            <td class="note" colSpan={2}>
              {empty}
            </td>
          </tr>
        </tbody>
      ) : (
        <>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                <th scope="row">{r.name}</th>
                <td>{r.value}</td>
              </tr>
            ))}
          </tbody>
        </>
      )}
    </table>
  );
}
