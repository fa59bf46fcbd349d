// A dot saying whether live updates flow: green when connected, red while reconnecting (lists then may lag).
import type { LiveStatus } from '../live.ts';

const TEXT: Record<LiveStatus, string> = {
  connecting: 'Connecting to live updates',
  open: 'Live updates on',
  reconnecting: 'Live updates lost; reconnecting',
};

export function LiveDot({ status }: { status: LiveStatus }) {
  return (
    <span class={`live-dot ${status}`} title={TEXT[status]}>
      <span class="visually-hidden">{TEXT[status]}</span>
    </span>
  );
}
