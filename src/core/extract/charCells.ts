// Joins codes laid out one character per block: templates put each digit of a code in its own table cell
// or div ("<td>8</td><td>0</td>…"), which reading the HTML block by block turns into one line per digit.
import type { TextLine } from './lines.ts';

/** A row of fewer single characters is a list of steps or ratings, a longer one is not a code. */
const MIN_CELLS = 4;
const MAX_CELLS = 12;

const isCell = (line: TextLine): boolean => line.text.length === 1 && /[A-Za-z0-9]/.test(line.text);

/** `lines` with every run of 4-12 one-character lines joined into one line, emphasised if all of it was. */
export function joinCharCells(lines: TextLine[]): TextLine[] {
  if (!lines.some(isCell)) return lines;
  const out: TextLine[] = [];
  let i = 0;
  while (i < lines.length) {
    let j = i;
    while (j < lines.length && isCell(lines[j] as TextLine)) j++;
    const run = j - i;
    if (run >= MIN_CELLS && run <= MAX_CELLS) {
      const cells = lines.slice(i, j);
      const text = cells.map((l) => l.text).join('');
      const emph: Array<[number, number]> = cells.every((l) => l.emph.length > 0) ? [[0, text.length]] : [];
      out.push({ text, emph });
      i = j;
      continue;
    }
    const stop = Math.max(j, i + 1);
    for (let k = i; k < stop; k++) out.push(lines[k] as TextLine);
    i = stop;
  }
  return out;
}
