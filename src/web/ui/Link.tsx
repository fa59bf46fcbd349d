// An <a> that navigates inside the dashboard without a page load, and leaves modified clicks to the browser.
import type { ComponentChildren, PartialAnchorHTMLAttributes, TargetedMouseEvent } from 'preact';
import { isPlainClick, navigate } from '../router.ts';

type Props = Omit<PartialAnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'role'> & {
  href: string;
  role?: 'tab' | 'link' | 'menuitem' | 'option';
  children?: ComponentChildren;
};

export function Link({ href, onClick, ...rest }: Props) {
  return (
    <a
      {...rest}
      href={href}
      onClick={(event: TargetedMouseEvent<HTMLAnchorElement>) => {
        if (typeof onClick === 'function') onClick(event);
        if (event.defaultPrevented || !isPlainClick(event)) return;
        event.preventDefault();
        navigate(href);
      }}
    />
  );
}
