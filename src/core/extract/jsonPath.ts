// A small JSONPath subset ($.a.b, $.a[0], $.items[*].id, $['odd.key'], $..id) evaluated over parsed
// JSON. Only own properties are read and __proto__, constructor and prototype are never walked.
import { inputError } from './re2.ts';

export type JsonPathSegment =
  | { type: 'key'; key: string; deep: boolean }
  | { type: 'index'; index: number; deep: boolean }
  | { type: 'wildcard'; deep: boolean };

export interface JsonPathMatch {
  /** Normalised path of the match, e.g. $.items[0].id. */
  path: string;
  value: unknown;
}

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_PATH_LENGTH = 1000;
const MAX_SEGMENTS = 64;
const MAX_DEPTH = 64;
/** Bounds the work of "..": every node visited counts, matches or not. */
const MAX_VISITS = 100_000;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const NAME_CHAR = /[^.[\]\s'"]/;

const HOW =
  "Use $.a.b, $.list[0], $.list[*].id, $['odd.key'] or $..id; filters and slices are not supported.";

function fail(path: string, at: number, what: string): never {
  throw inputError('pattern', `json_path "${path}" is invalid at position ${at}: ${what}. ${HOW}`);
}

function checkKey(path: string, at: number, key: string): string {
  if (FORBIDDEN.has(key)) {
    throw inputError(
      'pattern',
      `json_path "${path}" names "${key}" at position ${at}; __proto__, constructor and prototype are never read.`,
    );
  }
  return key;
}

function quoted(path: string, at: number): [string, number] {
  const quote = path[at] as string;
  let key = '';
  let i = at + 1;
  while (i < path.length && path[i] !== quote) {
    if (path[i] === '\\' && i + 1 < path.length) i++;
    key += path[i];
    i++;
  }
  if (i >= path.length) fail(path, at, `the quoted name is not closed with ${quote}`);
  return [key, i + 1];
}

export function parseJsonPath(raw: string): JsonPathSegment[] {
  const path = raw.trim();
  if (path === '') fail(raw, 0, 'it is empty');
  if (path.length > MAX_PATH_LENGTH)
    fail(raw, MAX_PATH_LENGTH, `it is longer than ${MAX_PATH_LENGTH} characters`);
  // "data.token" is read as "$.data.token": agents often leave the root out.
  let i = path.startsWith('$') ? 1 : 0;
  const src = i === 0 && NAME_CHAR.test(path[0] as string) ? `.${path}` : path;
  const offset = src === path ? 0 : -1;
  const segments: JsonPathSegment[] = [];
  while (i < src.length) {
    if (segments.length >= MAX_SEGMENTS) fail(path, i + offset, `it has more than ${MAX_SEGMENTS} steps`);
    let deep = false;
    if (src.startsWith('..', i)) {
      deep = true;
      i += 2;
      if (src[i] === '.' || i >= src.length)
        fail(path, i + offset, '".." must be followed by a name, * or [...]');
    } else if (src[i] === '.') {
      i++;
      if (i >= src.length || !NAME_CHAR.test(src[i] as string))
        fail(path, i + offset, 'a name must follow "."');
    }
    const c = src[i] as string;
    if (c === '[') {
      const close = src.indexOf(']', i);
      const inner = close === -1 ? '' : src.slice(i + 1, close).trim();
      if (inner.startsWith("'") || inner.startsWith('"')) {
        const start = src.indexOf(inner[0] as string, i);
        const [key, after] = quoted(src, start);
        let j = after;
        while (src[j] === ' ') j++;
        if (src[j] !== ']') fail(path, j + offset, 'expected "]" after the quoted name');
        segments.push({ type: 'key', key: checkKey(path, i + offset, key), deep });
        i = j + 1;
        continue;
      }
      if (close === -1) fail(path, i + offset, '"[" is not closed with "]"');
      if (inner === '*') segments.push({ type: 'wildcard', deep });
      else if (/^-?[0-9]{1,9}$/.test(inner)) segments.push({ type: 'index', index: Number(inner), deep });
      else if (inner.startsWith('?')) fail(path, i + offset, 'filter expressions [?(...)] are not supported');
      else if (inner.includes(':')) fail(path, i + offset, 'slices [a:b] are not supported');
      else fail(path, i + offset, `"[${inner}]" is not an index, * or a quoted name`);
      i = close + 1;
      continue;
    }
    if (c === '*') {
      segments.push({ type: 'wildcard', deep });
      i++;
      continue;
    }
    const start = i;
    while (i < src.length && NAME_CHAR.test(src[i] as string)) i++;
    if (i === start) fail(path, i + offset, `unexpected "${c}"`);
    segments.push({ type: 'key', key: checkKey(path, start + offset, src.slice(start, i)), deep });
  }
  return segments;
}

type Node = { value: unknown; path: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function keyPath(parent: string, key: string): string {
  return IDENTIFIER.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/** Own, walkable children of a node in document order. */
function children(node: Node): Node[] {
  if (Array.isArray(node.value)) return node.value.map((value, i) => ({ value, path: `${node.path}[${i}]` }));
  if (!isRecord(node.value)) return [];
  return Object.keys(node.value)
    .filter((key) => !FORBIDDEN.has(key))
    .map((key) => ({ value: (node.value as Record<string, unknown>)[key], path: keyPath(node.path, key) }));
}

function select(node: Node, segment: JsonPathSegment): Node[] {
  const { value } = node;
  switch (segment.type) {
    case 'wildcard':
      return children(node);
    case 'index': {
      if (!Array.isArray(value)) return [];
      const index = segment.index < 0 ? value.length + segment.index : segment.index;
      return index >= 0 && index < value.length
        ? [{ value: value[index], path: `${node.path}[${index}]` }]
        : [];
    }
    case 'key':
      return isRecord(value) && Object.hasOwn(value, segment.key)
        ? [{ value: value[segment.key], path: keyPath(node.path, segment.key) }]
        : [];
  }
}

/** The node and all its descendants, pre-order, within the depth and visit budgets. */
function descendants(root: Node, budget: { visits: number }): Node[] {
  const out: Node[] = [];
  const stack: Array<{ node: Node; depth: number }> = [{ node: root, depth: 0 }];
  while (stack.length > 0 && budget.visits > 0) {
    const { node, depth } = stack.pop() as { node: Node; depth: number };
    budget.visits--;
    out.push(node);
    if (depth >= MAX_DEPTH) continue;
    const kids = children(node);
    for (let k = kids.length - 1; k >= 0; k--) stack.push({ node: kids[k] as Node, depth: depth + 1 });
  }
  return out;
}

export function evaluateJsonPath(root: unknown, segments: JsonPathSegment[], limit: number): JsonPathMatch[] {
  let nodes: Node[] = [{ value: root, path: '$' }];
  const budget = { visits: MAX_VISITS };
  for (const segment of segments) {
    const next: Node[] = [];
    for (const node of nodes) {
      const scope = segment.deep ? descendants(node, budget) : [node];
      for (const n of scope) {
        for (const hit of select(n, segment)) if (next.length < MAX_VISITS) next.push(hit);
      }
    }
    nodes = next;
    if (nodes.length === 0) return [];
  }
  return nodes.filter((n) => n.value !== undefined).slice(0, limit);
}
