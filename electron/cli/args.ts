/** Small helpers shared by CLI commands (node:util parseArgs with usage errors). */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './command';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What parseCli returns: parseArgs's result for these options (named: the declarations tsc -b emits must name it). */
type ParsedCli<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>>;

/** parseArgs in strict mode; malformed arguments become UsageError (exit code 2). */
export function parseCli<O extends Options>(argv: string[], options: O, allowPositionals = false): ParsedCli<O> {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

export function requireOption(name: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** `a,b , c` → ['a', 'b', 'c']; undefined stays undefined. */
export function listOption(name: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0) throw new UsageError(`--${name} needs at least one value`);
  return list;
}

export function integerOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`--${name} must be an integer, got '${value}'`);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} is too large: '${value}'`);
  return n;
}

/** Progress lines go to stderr, and only when a person is watching (a TTY). */
export function progress(message: string): void {
  if (process.stderr.isTTY) process.stderr.write(`${message}\n`);
}

/** Formats rows as an aligned text table. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, j) => Math.max(...cells.map((r) => (r[j] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, j) => (j === 0 ? c.padEnd(widths[j]!) : c.padStart(widths[j]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** JSON with non-finite numbers written as null (Infinity has no JSON form). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2);
}
