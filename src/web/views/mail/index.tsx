// The Mail tab of a sandbox: the message list and, when one is chosen, the message view.

export function MailPane({ sandboxId, messageId }: { sandboxId: string; messageId?: string }) {
  return (
    <section aria-label="Mail" data-sandbox={sandboxId} data-message={messageId}>
      <p>Loading mail…</p>
    </section>
  );
}
