import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { StrictUtf8 } from './text-input';

/** One physical line of a text file. */
export interface TextLine {
  /** 1-based line number. */
  line: number;
  /** The line without its `\n` (and without a trailing `\r`). */
  text: string;
  /** False only for a last line that has no line end — a truncated write shows up this way. */
  terminated: boolean;
}

/**
 * Streams a text file line by line without ever holding the whole file in memory.
 * Hand-rolled instead of node:readline because readline cannot tell whether the final
 * line ended with `\n`, and a truncated JSONL log must be reported at that exact line.
 */
export async function* readLines(path: string, display = path): AsyncGenerator<TextLine> {
  // Strict UTF-8 (an invalid byte is refused at its line, text-input.ts); a BOM is dropped.
  const decoder = new StrictUtf8(path, display, { delimiter: null });
  let carry = '';
  let line = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const text = carry + decoder.decode(chunk as Buffer);
    let start = 0;
    let nl = text.indexOf('\n', start);
    while (nl !== -1) {
      line += 1;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      yield { line, text: text.slice(start, end), terminated: true };
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    carry = text.slice(start);
  }
  carry += decoder.end();
  if (carry.length > 0) {
    line += 1;
    yield { line, text: carry.endsWith('\r') ? carry.slice(0, -1) : carry, terminated: false };
  }
}

/** The first `maxBytes` of a file decoded as UTF-8 (for format sniffing). */
export async function readHead(path: string, maxBytes = 4096): Promise<Buffer> {
  // One synchronous read: a stream took several event-loop turns (~5 ms of every import's
  // format detection) for at most a few KB.
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(maxBytes);
    let total = 0;
    for (;;) {
      const n = readSync(fd, buf, total, maxBytes - total, total);
      if (n === 0) break;
      total += n;
      if (total >= maxBytes) break;
    }
    return buf.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}
