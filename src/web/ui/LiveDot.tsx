// A dot saying whether live updates flow: green when connected, red while reconnecting (lists then may lag),
// with a short word beside it so the state is not told by colour alone.
import type { LiveStatus } from '../live.ts';

const TEXT: Record<LiveStatus, string> = {
  connecting: 'Connecting to live updates',
  open: 'Live updates on',
  reconnecting: 'Live updates lost; reconnecting',
};

const SHORT: Record<LiveStatus, string> = {
  connecting: 'Connecting…',
  open: 'Live',
  reconnecting: 'Reconnecting…',
};

export function LiveDot({ status }: { status: LiveStatus }) {
  return (
    <span class="live-status" role="status" title={TEXT[status]} data-status={status}>
      <span class={`live-dot ${status}`} aria-hidden="true" />
      <span aria-hidden="true">{SHORT[status]}</span>
      <span class="visually-hidden">{TEXT[status]}</span>
    </span>
  );
}
