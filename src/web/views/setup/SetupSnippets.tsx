// The connection snippets for a sandbox (SMTP frameworks, provider SDKs, curl), one visible at a time.
import { useState } from 'preact/hooks';
import type { Sandbox } from '../../api.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { useSandboxContext } from '../sandboxContext.ts';
import { snippets } from './snippets.ts';

/**
 * Shown on the Setup tab and by an empty Mail tab. Without a `sandbox` prop it uses the sandbox of the page
 * it is in (SandboxContext), so the Mail pane can render it with no props.
 */
export function SetupSnippets({ sandbox }: { sandbox?: Sandbox }) {
  const context = useSandboxContext();
  const current = sandbox ?? context?.sandbox;
  const [selected, setSelected] = useState('nodemailer');
  if (!current) return null;
  const list = snippets(current);
  const snippet = list.find((item) => item.id === selected) ?? list[0]!;
  return (
    <section class="snippets" aria-labelledby="snippets-heading">
      <h2 id="snippets-heading">Point an app at this sandbox</h2>
      {/* Toggle buttons, not tabs: "nodemailer" must not answer for the sandbox's "Mail" tab. */}
      <div class="choices" role="group" aria-label="Snippet for">
        {list.map((item) => (
          <button
            type="button"
            key={item.id}
            aria-pressed={item.id === snippet.id}
            onClick={() => setSelected(item.id)}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div class="snippet-head">
        <span class="snippet-file">{snippet.file}</span>
        <CopyButton value={snippet.code} label={`${snippet.label} snippet`} />
      </div>
      {/* Focusable, because a long line scrolls sideways and keyboard users must be able to scroll it. */}
      <pre class="code" tabIndex={0}>
        <code>{snippet.code}</code>
      </pre>
    </section>
  );
}
