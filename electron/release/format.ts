/**
 * Byte-level writers of the release format (docs/release-format.md "General rules"): RFC 4180 CSV
 * with `\n` line ends, and JSON printed the way the release's own files are (Python's
 * `json.dumps(indent=2)`), so that an export is deterministic and a re-export identical.
 */
export { csvField, csvText, formatNumber, noneNeedQuotes, type CsvCell } from '../../shared/release/csv';
import { compareCodePoints } from '../../shared/engine/config';
import { formatNumber } from '../../shared/release/csv';

/** Code-point order of strings (the release's sort order; one definition, in the engine). */
export { compareCodePoints };

/** Marks a number that the release prints as a Python float (`0.0`, `75.827`). */
export class JsonFloat {
  constructor(readonly value: number) {}
}

export type JsonValue = string | number | boolean | null | JsonFloat | JsonValue[] | { [key: string]: JsonValue };

function floatText(x: number): string {
  if (!Number.isFinite(x)) return 'null';
  // Python's repr of a float has the same shortest digits as JS, but is positional only for
  // 1e-4 ≤ |x| < 1e16 (JS: 1e-6 ≤ |x| < 1e21) and writes at least two exponent digits:
  // 1e-05, 1.5e+17.
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-4 || a >= 1e16)) return x.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  // Positional, it always has a '.': 0.0, 12.0, 75.827.
  if (Number.isInteger(x)) return `${Object.is(x, -0) ? '-0' : String(x)}.0`;
  return String(x);
}

function stringText(s: string): string {
  // Raw UTF-8 (the format's rule), not Python's default ASCII escapes: the release's own
  // strings are ASCII, so both print its files identically.
  return JSON.stringify(s);
}

function write(v: JsonValue, indent: string, out: string[]): void {
  if (v === null) out.push('null');
  else if (v instanceof JsonFloat) out.push(floatText(v.value));
  else if (typeof v === 'number') out.push(Number.isFinite(v) ? formatNumber(v) : 'null');
  else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
  else if (typeof v === 'string') out.push(stringText(v));
  else if (Array.isArray(v)) {
    if (v.length === 0) {
      out.push('[]');
      return;
    }
    const inner = indent + '  ';
    out.push('[');
    v.forEach((x, i) => {
      out.push(i === 0 ? '\n' : ',\n', inner);
      write(x, inner, out);
    });
    out.push('\n', indent, ']');
  } else {
    const keys = Object.keys(v);
    if (keys.length === 0) {
      out.push('{}');
      return;
    }
    const inner = indent + '  ';
    out.push('{');
    keys.forEach((k, i) => {
      out.push(i === 0 ? '\n' : ',\n', inner, stringText(k), ': ');
      write(v[k] as JsonValue, inner, out);
    });
    out.push('\n', indent, '}');
  }
}

/**
 * JSON text as Python's `json.dumps(value, indent=2)` prints it (the release's files: no
 * trailing newline, `": "` and `","` separators). Key order is the
 * insertion order of the objects given — callers build them in a fixed order.
 */
export function jsonText(value: JsonValue): string {
  const out: string[] = [];
  write(value, '', out);
  return out.join('');
}

/** Compares key tuples column by column in code-point order (a column `b` lacks counts as empty). */
export function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    const c = compareCodePoints(a[i]!, b[i] ?? '');
    if (c !== 0) return c;
  }
  return 0;
}
