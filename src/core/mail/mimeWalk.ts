// Walks the MIME tree of a raw message with the splitting rules of mailparser's own splitter (mailsplit):
// which line is a delimiter, where a part's headers end, which part nests in which, which bytes are a part's
// body. Unlike that splitter it numbers no part paths (a copy of every ancestor's number per part), so any
// nesting depth and any number of parts cost linear time, and memory only for the open ancestors.
import { MimeNode } from '@zone-eu/mailsplit';
import { boundaryOf } from './mailsplitInternals.ts';

const LF = 0x0a;
const CR = 0x0d;
const DASH = 0x2d;
/** "--" after the boundary, a line break, and the "--" before it: the longest a delimiter line gets. */
const BOUNDARY_LINE_SUFFIX = 6;

export type WalkItem =
  /** The top-level header block (first, once). */
  | { kind: 'root'; header: Buffer }
  /**
   * A part mailparser reads content from (not multipart, not an embedded message it descends into), in
   * order: its header block and its body bytes as mailparser's decoder would receive them.
   */
  | { kind: 'part'; header: Buffer; body: Buffer }
  /** Another stretch of input was read: a caller that yields to the event loop does so here. */
  | { kind: 'progress' };

/** Input read between two progress items. */
const PROGRESS_BYTES = 256 * 1024;

interface WalkNode {
  headerStart: number;
  headerEnd: number;
  parsed: boolean;
  multipart: boolean;
  boundary: Buffer | null;
  parentBoundary: Buffer | null;
  /** The node whose boundary `parentBoundary` is. */
  owner: WalkNode | null;
  root: boolean;
}

interface NodeType {
  multipart: boolean;
  boundary: Buffer | null;
  /** An inline message/rfc822 part: the splitter reads its body as a message nested in it. */
  embedsMessage: boolean;
}

const PLAIN: NodeType = { multipart: false, boundary: null, embedsMessage: false };

/** The node's type as the splitter reads it from the header block (the same code parses it). */
function nodeType(header: Buffer): NodeType {
  // Without a Content-* field a part is text/plain: no need to parse its fields.
  if (!/content-/i.test(header.toString('latin1'))) return PLAIN;
  const node = new MimeNode(false);
  node.addHeaderChunk(header);
  node.parseHeaders();
  const encoding = node.encoding || '';
  return {
    multipart: node.multipart !== false,
    boundary: boundaryOf(node),
    embedsMessage:
      node.contentType === 'message/rfc822' &&
      ['', '7bit', '8bit', 'binary'].includes(encoding) &&
      node.disposition === 'inline',
  };
}

export function* walkMime(raw: Buffer): Generator<WalkItem> {
  const out: WalkItem[] = [];
  const newNode = (parent: WalkNode | null, at: number): WalkNode => ({
    headerStart: at,
    headerEnd: at,
    parsed: false,
    multipart: false,
    boundary: null,
    parentBoundary: parent?.boundary ?? null,
    owner: parent,
    root: parent === null,
  });
  let node = newNode(null, 0);
  let inHead = true;
  let inEpilogue = false;
  /** The content part whose body is being read: [node, body start]. */
  let open: { node: WalkNode; header: Buffer; start: number } | null = null;

  const compare = (start: number, end: number, sp: number, boundary: Buffer): 0 | 1 | 2 => {
    const len = end - start;
    if (len < boundary.length + 3 + sp || len > boundary.length + BOUNDARY_LINE_SUFFIX + sp) return 0;
    for (let i = 0; i < boundary.length; i++) if (raw[start + i + 2 + sp] !== boundary[i]) return 0;
    let pos = 0;
    for (let i = start + boundary.length + 2 + sp; i < end; i++) {
      const c = raw[i];
      if (pos === 0 && (c === CR || c === LF)) return 1;
      if (pos === 0 && c !== DASH) return 0;
      if (pos === 1 && c !== DASH) return 0;
      if (pos === 2 && c !== CR && c !== LF) return 0;
      if (pos === 3 && c !== LF) return 0;
      pos++;
    }
    return 2;
  };

  /** 1 next child, 2 end of children, 3 next sibling, 4 end of the parent's children; 0 not a delimiter. */
  const delimiter = (start: number, end: number): number => {
    const len = end - start;
    let sp = 0;
    if (len >= 1 && (raw[start] === CR || raw[start] === LF)) {
      sp++;
      if (len >= 2 && raw[start] === CR && raw[start + 1] === LF) sp++;
    }
    if (len < 4 || start + sp + 1 >= end || raw[start + sp] !== DASH || raw[start + sp + 1] !== DASH)
      return 0;
    let found: number;
    if (!inEpilogue && node.boundary !== null && (found = compare(start, end, sp, node.boundary)) !== 0)
      return found;
    if (node.parentBoundary !== null && (found = compare(start, end, sp, node.parentBoundary)) !== 0)
      return found + 2;
    return 0;
  };

  /** The body of the open part ends here; before a delimiter its last line break belongs to the delimiter. */
  const close = (at: number, byDelimiter: boolean) => {
    if (open === null) return;
    let end = at;
    if (byDelimiter && !open.node.root && end > open.start && raw[end - 1] === LF) {
      end--;
      if (end > open.start && raw[end - 1] === CR) end--;
    }
    out.push({
      kind: 'part',
      header: open.header,
      body: raw.subarray(open.start, Math.max(end, open.start)),
    });
    open = null;
  };

  /**
   * The header block of `n` is complete: read its type; returns whether the splitter descends into it as an
   * embedded message (never for a part cut short by its parent's closing delimiter).
   */
  const headersDone = (n: WalkNode, bodyStart: number, mayEmbed: boolean): boolean => {
    n.parsed = true;
    const header = raw.subarray(n.headerStart, n.headerEnd);
    const type = nodeType(header);
    n.multipart = type.multipart;
    n.boundary = type.boundary;
    if (n.root) out.push({ kind: 'root', header });
    const embeds = mayEmbed && type.embedsMessage;
    if (!type.multipart && !embeds) open = { node: n, header, start: bodyStart };
    return embeds;
  };

  const line = (start: number, end: number, final: boolean) => {
    const found = delimiter(start, end);
    if (found !== 0) {
      close(start, true);
      if (found === 1) {
        node = newNode(node, end);
        inHead = true;
        inEpilogue = false;
      } else if (found === 3) {
        node = newNode(node.owner, end);
        inHead = true;
        inEpilogue = false;
      } else if (found === 4) {
        // A part that had header lines but no end of headers still counts, with an empty body.
        if (node.headerEnd > node.headerStart && !node.parsed) {
          headersDone(node, start, false);
          close(start, false);
        }
        if (node.owner !== null) {
          node = node.owner;
          inEpilogue = true;
        }
        inHead = false;
      }
      return;
    }
    if (inHead) {
      node.headerEnd = end;
      const blank =
        (end - start === 1 && raw[start] === LF) ||
        (end - start === 2 && raw[start] === CR && raw[start + 1] === LF);
      if (!final && !blank) return;
      const parent = node;
      if (headersDone(parent, end, true)) {
        node = newNode(parent, end);
        // The embedded message still ends at its container's own delimiters.
        const container = parent.owner;
        if (container !== null) {
          node.parentBoundary = container.boundary;
          node.owner = container;
        }
        inEpilogue = false;
      } else inHead = false;
      return;
    }
    // Body lines of a multipart node (preamble, epilogue) are not content and end any open part.
    if (node.multipart) close(start, false);
  };

  let pos = 0;
  let progressAt = PROGRESS_BYTES;
  for (;;) {
    const nl = raw.indexOf(LF, pos);
    if (nl === -1) break;
    line(pos, nl + 1, false);
    pos = nl + 1;
    if (out.length > 0) yield* out.splice(0);
    if (pos >= progressAt) {
      progressAt = pos + PROGRESS_BYTES;
      yield { kind: 'progress' };
    }
  }
  line(pos, raw.length, true);
  close(raw.length, false);
  yield* out.splice(0);
}
