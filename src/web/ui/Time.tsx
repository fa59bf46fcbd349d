// A <time> showing how long ago, with the exact instant on hover and for assistive technology.
import { fullTime, timeAgo } from './time.ts';

export function Time({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={fullTime(iso)}>
      {timeAgo(iso)}
    </time>
  );
}
