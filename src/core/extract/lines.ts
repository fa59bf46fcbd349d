// Turns mail bodies into visible lines of text (one block per line), remembering which spans the
// sender emphasised, because OTP templates put the code in bold or large type. HTML goes through the
// shared HTML-to-text (src/core/text/htmlToText.ts), the same one message previews use.
import { htmlToText, ZERO_WIDTH, type TextLine } from '../text/htmlToText.ts';

export { htmlToLines, type TextLine } from '../text/htmlToText.ts';

/** Lines of a plain-text part; no emphasis is known. */
export function textToLines(text: string): TextLine[] {
  const lines: TextLine[] = [];
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw
      .replace(ZERO_WIDTH, '')
      .replace(/[\t\u00a0]/g, ' ')
      .trim();
    if (line !== '') lines.push({ text: line, emph: [] });
  }
  return lines;
}

/** The visible text of HTML as a plain string, one block per line. */
export function htmlToPlainText(html: string): string {
  return htmlToText(html);
}
