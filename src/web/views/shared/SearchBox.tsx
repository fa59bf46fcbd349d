// A list's search box: what is typed shows at once, the search goes out (as `search=`) after a pause in
// typing, lives in the URL (`?search=`, so a reload keeps it), and a mistake in it shows beside it.
import { Fragment } from 'preact';
import { useCallback, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import type { Page } from './keysetList.ts';

/** The URL parameter the search lives in. */
const PARAM = 'search';

/** The search in the URL, or '' when none. */
export function searchFromUrl(): string {
  return new URLSearchParams(location.search).get(PARAM) ?? '';
}

/** Puts the search in the URL in place (no history entry per keystroke), or takes it out when blank. */
function searchToUrl(search: string): void {
  const params = new URLSearchParams(location.search);
  if (search.trim() === '') params.delete(PARAM);
  else params.set(PARAM, search);
  const query = params.toString();
  history.replaceState(
    history.state,
    '',
    `${location.pathname}${query === '' ? '' : `?${query}`}${location.hash}`,
  );
}

/** The server's word on a search it could not read (a 400 naming `search`), or null for any other failure. */
function searchMistake(err: unknown): string | null {
  if (!(err instanceof ApiError) || err.status !== 400) return null;
  const field = err.problem.errors?.find((e) => e.path === PARAM);
  return field === undefined ? null : field.message;
}

/**
 * A list's search: its text (from the URL at first), the mistake the server found in it, and `guard` for the
 * list's page loads, which turns a refused search into an empty page and the mistake shown at the box.
 */
export function useListSearch() {
  const [search, setSearch] = useState(searchFromUrl);
  const [mistake, setMistake] = useState<string | null>(null);
  const guard = useCallback(async <T,>(page: Promise<Page<T>>): Promise<Page<T>> => {
    try {
      const got = await page;
      setMistake(null);
      return got;
    } catch (err) {
      const said = searchMistake(err);
      if (said === null) throw err;
      setMistake(said);
      return { items: [], nextCursor: null };
    }
  }, []);
  // A live arrival cannot be matched here (the search reads bodies the summary does not have), so an active
  // search reads its first page again; arrivals in a burst share one read.
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refreshSoon = useCallback((refresh: () => void) => {
    if (pending.current !== undefined) return;
    pending.current = setTimeout(() => {
      pending.current = undefined;
      refresh();
    }, 150);
  }, []);
  return { search, setSearch, mistake, guard, refreshSoon };
}

export function SearchBox({
  label,
  initial,
  onSearch,
  mistake = null,
  operators,
}: {
  /** Its accessible name; the placeholder adds the "/" shortcut. */
  label: string;
  initial: string;
  onSearch: (q: string) => void;
  /** What is wrong with the search, as the server said (shown under the box). */
  mistake?: string | null;
  /** The hint under the box while it has focus: the operators this list knows. */
  operators: string;
}) {
  const [text, setText] = useState(initial);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const id = useId();
  // Typing waits for a pause before asking the server, so each keystroke is not a query.
  const onInput = (value: string) => {
    setText(value);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      searchToUrl(value);
      onSearch(value);
    }, 250);
  };
  return (
    <div class="search-box">
      <input
        type="search"
        aria-label={label}
        placeholder={`${label}  /`}
        value={text}
        aria-invalid={mistake === null ? undefined : 'true'}
        aria-describedby={mistake === null ? `${id}-hint` : `${id}-error ${id}-hint`}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      {mistake !== null && (
        <p id={`${id}-error`} class="search-error" role="alert">
          {mistake}
        </p>
      )}
      {/* Each operator in one piece: the hint wraps between them, never inside one ("-leave-" / "out"). */}
      <p id={`${id}-hint`} class="search-hint hint">
        {[...operators.split(' '), '·', '"exact phrase"', '·', '-leave-out'].map((part, i) => (
          <Fragment key={i}>
            {i > 0 && ' '}
            <span>{part}</span>
          </Fragment>
        ))}
      </p>
    </div>
  );
}

/** The operators of each list, as the hint shows them (src/core/search/parse.ts has the same). */
export const MAIL_OPERATORS = 'from: to: subject: has:attachment is:unread is:read before:/after:2026-01-31';
export const REQUEST_OPERATORS = 'is:unread is:read before:/after:2026-01-31';
