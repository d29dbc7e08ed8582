import { ImportError } from './errors';

/**
 * The header row of a CSV / TSV / xlsx sheet. A column name that appears twice is read
 * only if both columns hold the same value on every row; otherwise the row is rejected
 * naming the column (docs/formats.md "Duplicated columns"). Which copy a reader would
 * take is an accident of its code, and a silent pick produced wrong numbers (a second
 * `prediction` column scored 0/12).
 */
export class Header {
  /** Distinct names in first-seen order. */
  readonly names: string[] = [];
  private readonly firstIndex = new Map<string, number>();
  /** [name, index of the first copy, index of a later copy]. */
  private readonly copies: [string, number, number][] = [];

  constructor(
    header: readonly string[],
    private readonly file: string,
  ) {
    header.forEach((name, i) => {
      const first = this.firstIndex.get(name);
      if (first === undefined) {
        this.firstIndex.set(name, i);
        this.names.push(name);
      } else {
        this.copies.push([name, first, i]);
      }
    });
  }

  /** The full width of the header row (copies included). */
  get width(): number {
    return this.names.length + this.copies.length;
  }

  has(name: string): boolean {
    return this.firstIndex.has(name);
  }

  /** Index of a column's first copy, or -1. */
  index(name: string): number {
    return this.firstIndex.get(name) ?? -1;
  }

  /** Rejects the row when two copies of a column differ (compared as JSON, so xlsx cells too). */
  check(values: readonly unknown[], line: number): void {
    for (const [name, a, b] of this.copies) {
      const x = values[a];
      const y = values[b];
      if (x === y || JSON.stringify(x ?? null) === JSON.stringify(y ?? null)) continue;
      throw new ImportError(
        this.file,
        line,
        name,
        `duplicated column "${name}" (columns ${a + 1} and ${b + 1}) with different values: ${JSON.stringify(x ?? null)} and ${JSON.stringify(y ?? null)}`,
      );
    }
  }

  /** The row as a record by column name, after `check`. */
  record(values: readonly unknown[], line: number): Record<string, unknown> {
    this.check(values, line);
    const rec: Record<string, unknown> = {};
    this.firstIndex.forEach((i, name) => (rec[name] = values[i]));
    return rec;
  }
}
