// The links of a message with what each one does (verify, reset, sign-in, unsubscribe), as the API lists them.
import type { MessageLink } from './types.ts';

const KIND_LABELS: Record<string, string> = {
  verify: 'Verify',
  reset: 'Password reset',
  magic_login: 'Sign-in link',
  unsubscribe: 'Unsubscribe',
  other: 'Other',
};

export function LinksList({ links }: { links: MessageLink[] }) {
  if (links.length === 0) return <p class="note">This message has no links.</p>;
  return (
    <table class="kv links">
      <caption class="visually-hidden">Links</caption>
      <thead>
        <tr>
          <th scope="col">Kind</th>
          <th scope="col">Link</th>
        </tr>
      </thead>
      <tbody>
        {links.map((l, i) => (
          <tr key={i}>
            <td>
              <span class={`kind kind-${l.kind}`}>{KIND_LABELS[l.kind] ?? l.kind}</span>
            </td>
            <td>
              {l.text !== '' && l.text !== l.url && <div class="link-text">{l.text}</div>}
              {/* Opened in a new tab without the dashboard as referrer or opener. */}
              <a href={l.url} target="_blank" rel="noopener noreferrer" class="link-url">
                {l.url}
              </a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
