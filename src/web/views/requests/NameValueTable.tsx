// A captioned name/value table, for query parameters, headers and form fields.

/** Rows exactly as sent: order, case and repeated names kept. */
export function NameValueTable({
  caption,
  rows,
  empty,
}: {
  caption: string;
  rows: { name: string; value: string }[];
  empty: string;
}) {
  return (
    <table class="kv">
      <caption>{caption}</caption>
      {rows.length === 0 ? (
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
