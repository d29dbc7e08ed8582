import { stat } from 'node:fs/promises';
import { ImportError } from './errors';
import { nullPythonFloats } from './py-json';
import { readTextFile } from './text-input';

/**
 * A whole JSON document plus the source line of every object in it, so JSON importers
 * can report `file:line:field` too.
 *
 * How: the i-th `{` outside strings in the text opens the i-th object of a pre-order walk
 * of the parsed value (JSON.parse keeps document order, except that integer-like keys are
 * enumerated first — result files do not use those for records).
 * JSON result/metadata files are read whole: they are small (a benchmark's worth of
 * questions); files above MAX_JSON_BYTES are refused rather than exhausting memory.
 */
export const MAX_JSON_BYTES = 512 * 1024 * 1024;

export interface JsonSource {
  value: unknown;
  lineOf(obj: unknown): number;
}

export async function readJsonSource(path: string, display = path): Promise<JsonSource> {
  const size = (await stat(path)).size;
  if (size > MAX_JSON_BYTES) throw new ImportError(display, 0, '', `JSON file too large (${size} bytes)`);
  // Strict UTF-8, a leading BOM dropped (text-input.ts); Python's bare NaN/Infinity are
  // missing values (py-json.ts) — line numbers are unchanged.
  const text = nullPythonFloats(await readTextFile(path, display));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const pos = /position (\d+)/.exec(msg);
    const line = pos?.[1] ? lineAt(text, Number(pos[1])) : 0;
    throw new ImportError(display, line, '', `malformed JSON: ${msg}`);
  }
  const braces = objectStartLines(text);
  const lines = new WeakMap<object, number>();
  let k = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
    } else if (v !== null && typeof v === 'object') {
      lines.set(v, braces[k++] ?? 0);
      for (const x of Object.values(v)) walk(x);
    }
  };
  walk(value);
  return { value, lineOf: (obj) => (obj !== null && typeof obj === 'object' ? (lines.get(obj) ?? 0) : 0) };
}

function lineAt(text: string, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function objectStartLines(text: string): number[] {
  const out: number[] = [];
  let line = 1;
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    else if (inStr) {
      if (c === 92)
        i++; // backslash: skip the escaped char
      else if (c === 34) inStr = false;
    } else if (c === 34) inStr = true;
    else if (c === 123) out.push(line);
  }
  return out;
}
