// The worker-thread side of the parse pool (parsePool.ts): parses one message and hands its bytes back.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { parseMessage, type ParsedMessage } from './parseMessage.ts';

export interface ParseTask {
  raw: Uint8Array;
  envelopeFrom: string | null;
}

export interface ParseResult {
  raw: Uint8Array;
  parsed: ParsedMessage;
}

export default async function parse({ raw, envelopeFrom }: ParseTask): Promise<unknown> {
  const result: ParseResult = { raw, parsed: await parseMessage(raw, envelopeFrom) };
  // The raw bytes came here by transfer and go back the same way: the main thread stores them.
  return move({
    get [transferableSymbol]() {
      return [raw.buffer];
    },
    get [valueSymbol]() {
      return result;
    },
  });
}
