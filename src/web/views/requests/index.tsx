// The Requests tab of a sandbox: the captured request list and, when one is chosen, the request view.

export function RequestsPane({ sandboxId, requestId }: { sandboxId: string; requestId?: string }) {
  return (
    <section aria-label="Requests" data-sandbox={sandboxId} data-request={requestId}>
      <p>Loading requests…</p>
    </section>
  );
}
