// Splits the decoded address headers the API serves (From, To, Cc, Reply-To) into display names and addresses.

export interface Address {
  /** The display name, or '' when the sender wrote only the address. */
  name: string;
  /** The address itself; '' for a group label or text that names no mailbox. */
  address: string;
}

/** One mailbox as the API formats it: `Name <addr>`, `"Name" <addr>`, or a bare address. */
export function parseAddress(text: string): Address {
  const value = text.trim();
  const match = /^(.*?)\s*<([^<>]*)>\s*$/s.exec(value);
  if (match === null)
    return value.includes('@') ? { name: '', address: value } : { name: value, address: '' };
  return { name: unquote(match[1] ?? ''), address: (match[2] ?? '').trim() };
}

/**
 * The mailboxes of an address-list header value. Commas inside quotes, angle brackets and comments do not
 * split, and a group (`Team: a@x, b@y;`) gives its members. The values arrive with encoded words already
 * decoded, so a display name like `=?utf-8?q?Doe=2C_Jane?=` reads `Doe, Jane <j@x>`: a piece that names no
 * address is the front of the next one's name, and is joined back to it.
 */
export function parseAddressList(value: string): Address[] {
  const pieces: string[] = [];
  let current = '';
  let quoted = false;
  let angle = 0;
  let comment = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] ?? '';
    if (c === '\\' && (quoted || comment > 0)) {
      current += c + (value[i + 1] ?? '');
      i++;
      continue;
    }
    if (quoted) {
      if (c === '"') quoted = false;
      current += c;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === '(') comment++;
    else if (c === ')' && comment > 0) comment--;
    else if (c === '<') angle++;
    else if (c === '>' && angle > 0) angle--;
    else if (comment === 0 && angle === 0) {
      // A group's label ends at its colon and the group itself at the semicolon: both end a piece.
      if (c === ',' || c === ';' || (c === ':' && !/[@<]/.test(current))) {
        // A group's label names no mailbox and is not part of its first member's name.
        if (c !== ':') pieces.push(current);
        current = '';
        continue;
      }
    }
    current += c;
  }
  pieces.push(current);

  const out: Address[] = [];
  let pending = '';
  for (const raw of pieces) {
    const piece = raw.trim();
    if (piece === '') continue;
    const parsed = parseAddress(stripComments(piece));
    if (parsed.address === '') {
      pending = pending === '' ? piece : `${pending}, ${piece}`;
      continue;
    }
    if (pending !== '' && parsed.name !== '') parsed.name = `${unquote(pending)}, ${parsed.name}`;
    pending = '';
    out.push(parsed);
  }
  return out;
}

function unquote(name: string): string {
  const t = name.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) return t.slice(1, -1).replace(/\\(.)/g, '$1');
  return t;
}

/** Comments outside quotes, e.g. `a@x (Support)`, are not part of the address. */
function stripComments(piece: string): string {
  return piece.includes('"') ? piece : piece.replace(/\([^()]*\)/g, '').trim();
}
