// A list's search box: what is typed shows at once, the query goes out after a pause in typing.
import { useRef, useState } from 'preact/hooks';

export function SearchBox({
  label,
  initial,
  onSearch,
}: {
  /** Its accessible name; the placeholder adds the "/" shortcut. */
  label: string;
  initial: string;
  onSearch: (q: string) => void;
}) {
  const [text, setText] = useState(initial);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // Typing waits for a pause before asking the server, so each keystroke is not a query.
  const onInput = (value: string) => {
    setText(value);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => onSearch(value), 250);
  };
  return (
    <input
      type="search"
      aria-label={label}
      placeholder={`${label}  /`}
      value={text}
      onInput={(e) => onInput(e.currentTarget.value)}
    />
  );
}
