// A message's header block as a mail client shows it: who sent it to whom, with names first and addresses a
// hover or a focus away, long recipient lists folded, and on a phone one line that opens to the rest.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { bytes, fullTime } from '../../ui/time.ts';
import { parseAddress, parseAddressList, type Address } from './addresses.ts';
import type { MessageDetail } from './types.ts';

/** Recipients shown before the rest fold into "and N more". */
const SHOWN_RECIPIENTS = 3;

export function MessageHeader({
  detail,
  subject,
  actions,
}: {
  detail: MessageDetail;
  subject: string;
  /** The buttons on the message (read flag, Delete). */
  actions: ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  const header = (name: string) => detail.headers.find((h) => h.name.toLowerCase() === name)?.value;
  const from = parseAddress(detail.from);
  const to = detail.to.map(parseAddress);
  const ccValue = header('cc');
  const replyToValue = header('reply-to');
  const cc = ccValue === undefined ? [] : parseAddressList(ccValue);
  const replyTo = replyToValue === undefined ? [] : parseAddressList(replyToValue);
  const date = header('date');
  const dateTime = date === undefined ? null : new Date(date);
  // The envelope says who the mail was captured for; worth a line only when it names someone the headers
  // do not (Bcc, a forward), not because the headers spell the same people with names.
  const written = new Set([...to, ...cc].map((a) => a.address.toLowerCase()));
  const capturedElsewhere = detail.capturedFor.some((a) => !written.has(a.toLowerCase()));

  return (
    <div class={`msg-head${open ? ' is-open' : ''}`}>
      <header class="detail-head">
        <h2 id="message-subject">{subject}</h2>
        <div class="detail-actions">{actions}</div>
      </header>
      <p class="msg-summary">
        <span class="msg-summary-from">
          <span class="visually-hidden">From </span>
          {from.name || from.address}
        </span>
        <button
          type="button"
          class="link-button msg-details-toggle"
          aria-expanded={open}
          aria-controls="message-meta"
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide details' : 'Details'}
        </button>
      </p>
      <dl class="meta msg-meta" id="message-meta">
        <dt>From</dt>
        <dd>
          <AddressItem address={from} />
        </dd>
        <dt>To</dt>
        <dd>{to.length === 0 ? '—' : <AddressList label="To" addresses={to} />}</dd>
        {cc.length > 0 && (
          <>
            <dt>Cc</dt>
            <dd>
              <AddressList label="Cc" addresses={cc} />
            </dd>
          </>
        )}
        {replyTo.length > 0 && (
          <>
            <dt>Reply-To</dt>
            <dd>
              <AddressList label="Reply-To" addresses={replyTo} />
            </dd>
          </>
        )}
        {capturedElsewhere && (
          <>
            <dt>Captured for</dt>
            <dd>{detail.capturedFor.join(', ')}</dd>
          </>
        )}
        {date !== undefined && (
          <>
            <dt>Date</dt>
            <dd>
              {dateTime !== null && !Number.isNaN(dateTime.getTime()) ? (
                <time dateTime={dateTime.toISOString()} title={date}>
                  {fullTime(dateTime.toISOString())}
                </time>
              ) : (
                date
              )}
            </dd>
          </>
        )}
        <dt>Received</dt>
        <dd>
          <time dateTime={detail.receivedAt}>{fullTime(detail.receivedAt)}</time> · {bytes(detail.sizeBytes)}
        </dd>
      </dl>
    </div>
  );
}

function AddressList({ label, addresses }: { label: string; addresses: Address[] }) {
  const [all, setAll] = useState(false);
  const shown =
    all || addresses.length <= SHOWN_RECIPIENTS + 1 ? addresses : addresses.slice(0, SHOWN_RECIPIENTS);
  const hidden = addresses.length - shown.length;
  return (
    <span class="addr-list">
      {shown.map((a, i) => (
        <span key={i}>
          {i > 0 && ', '}
          <AddressItem address={a} />
        </span>
      ))}
      {hidden > 0 && (
        <>
          {' '}
          <button
            type="button"
            class="link-button more-addrs"
            aria-label={`and ${hidden} more ${label} recipients: show all`}
            onClick={() => setAll(true)}
          >
            and {hidden} more
          </button>
        </>
      )}
    </span>
  );
}

/** A name with its address in the title (hover) and spelled out on keyboard focus; a bare address as is. */
function AddressItem({ address }: { address: Address }) {
  if (address.name === '' || address.address === '') {
    return <span class="addr">{address.name || address.address}</span>;
  }
  const full = `${address.name} <${address.address}>`;
  return (
    <span class="addr" tabIndex={0} title={full}>
      {address.name}
      <span class="visually-hidden addr-full"> &lt;{address.address}&gt;</span>
    </span>
  );
}
