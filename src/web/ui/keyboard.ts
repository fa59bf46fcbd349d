// Keyboard use of the whole dashboard: j/k move through the list in view, / focuses its search, Esc goes back.
// Enter needs nothing here: the list items are links.
import { useEffect, useRef } from 'preact/hooks';
import { navigate, parentPath, type Route } from '../router.ts';

// Lists opt in with data-keylist; the named lists of the contract are found without it.
const LIST_ITEMS =
  '[data-keylist] a[href], ul[aria-label="Messages"] a[href], ul[aria-label="Requests"] a[href]';
const SEARCH = 'input[type="search"]';

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

function visible(element: HTMLElement): boolean {
  return element.offsetParent !== null || element.getClientRects().length > 0;
}

function moveInList(step: 1 | -1): void {
  const items = [...document.querySelectorAll<HTMLElement>(LIST_ITEMS)].filter(visible);
  if (items.length === 0) return;
  const at = items.indexOf(document.activeElement as HTMLElement);
  const next = at === -1 ? (step === 1 ? items[0] : items[items.length - 1]) : items[at + step];
  if (!next) return;
  next.focus();
  next.scrollIntoView({ block: 'nearest' });
}

export function useKeyboard(route: Route): void {
  const current = useRef(route);
  current.current = route;
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (document.querySelector('dialog[open]')) return;
      if (event.key === 'Escape') {
        if (isTyping(event.target)) {
          (event.target as HTMLElement).blur();
          return;
        }
        const parent = parentPath(current.current);
        if (parent) {
          event.preventDefault();
          navigate(parent);
        }
        return;
      }
      if (isTyping(event.target)) return;
      if (event.key === 'j' || event.key === 'k') {
        event.preventDefault();
        moveInList(event.key === 'j' ? 1 : -1);
      } else if (event.key === '/') {
        const search = [...document.querySelectorAll<HTMLInputElement>(SEARCH)].find(visible);
        if (!search) return;
        event.preventDefault();
        search.focus();
        search.select();
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);
}
