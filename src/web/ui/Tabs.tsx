// Tabs as links (each tab is a URL), with the tab roles and arrow-key movement of the ARIA tabs pattern.
import type { ComponentChildren, TargetedKeyboardEvent } from 'preact';
import { Link } from './Link.tsx';

export interface TabItem {
  id: string;
  label: string;
  href: string;
  badge?: ComponentChildren;
}

export function Tabs({ items, selected, label }: { items: TabItem[]; selected: string; label: string }) {
  const onKeyDown = (event: TargetedKeyboardEvent<HTMLElement>) => {
    const keys: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1 };
    const step = keys[event.key];
    if (!step) return;
    const tabs = [...event.currentTarget.querySelectorAll<HTMLElement>('[role="tab"]')];
    const at = tabs.indexOf(document.activeElement as HTMLElement);
    const next = tabs[(at + step + tabs.length) % tabs.length];
    next?.focus();
    next?.click();
    event.preventDefault();
  };
  return (
    <nav class="tabs" role="tablist" aria-label={label} onKeyDown={onKeyDown}>
      {items.map((item) => (
        <Link
          key={item.id}
          href={item.href}
          role="tab"
          id={`tab-${item.id}`}
          aria-selected={item.id === selected}
          aria-controls="tabpanel"
          tabIndex={item.id === selected ? 0 : -1}
        >
          {item.label}
          {item.badge}
        </Link>
      ))}
    </nav>
  );
}

/** Local (non-URL) tabs inside a view, e.g. a snippet chooser. */
export function LocalTabs({
  items,
  selected,
  onSelect,
  label,
  children,
  idPrefix,
}: {
  items: { id: string; label: string }[];
  selected: string;
  onSelect: (id: string) => void;
  label: string;
  children: ComponentChildren;
  idPrefix: string;
}) {
  const onKeyDown = (event: TargetedKeyboardEvent<HTMLElement>) => {
    const step = ({ ArrowRight: 1, ArrowLeft: -1 } as Record<string, number>)[event.key];
    if (!step) return;
    const at = items.findIndex((item) => item.id === selected);
    const next = items[(at + step + items.length) % items.length];
    if (!next) return;
    onSelect(next.id);
    document.getElementById(`${idPrefix}-tab-${next.id}`)?.focus();
    event.preventDefault();
  };
  return (
    <div class="local-tabs">
      <div class="tabs" role="tablist" aria-label={label} onKeyDown={onKeyDown}>
        {items.map((item) => (
          <button
            type="button"
            key={item.id}
            role="tab"
            id={`${idPrefix}-tab-${item.id}`}
            aria-selected={item.id === selected}
            aria-controls={`${idPrefix}-panel`}
            tabIndex={item.id === selected ? 0 : -1}
            onClick={() => onSelect(item.id)}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`${idPrefix}-panel`}
        aria-labelledby={`${idPrefix}-tab-${selected}`}
        tabIndex={0}
      >
        {children}
      </div>
    </div>
  );
}
