/**
 * RFC 4180 CSV text with `\n` line ends (docs/release-format.md "General rules"): the one CSV
 * writer, used by the release export and by the renderer's chart export, so a chart's CSV
 * opens the same way as the release's files.
 */
/** A CSV cell: strings as they are, numbers printed by {@link formatNumber}, null/undefined empty. */
export type CsvCell = string | number | null | undefined;

/**
 * Formats a number for CSV output: integers without a decimal point, others as the shortest
 * string that parses back to the same double (JS `String`), so export → import → export is
 * byte-identical. Non-finite values are written empty (they mean "not recorded").
 */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return '';
  if (Object.is(x, -0)) return '0';
  return String(x);
}

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * Whether none of `values` needs quoting as a CSV field: one regex test over their
 * concatenation instead of one per value (bulk writers then print the values as they are).
 */
export function noneNeedQuotes(values: readonly string[]): boolean {
  return !NEEDS_QUOTES.test(values.join(''));
}

/** One RFC 4180 field: quoted (inner quotes doubled) only when it holds a comma, a quote or a line break. */
export function csvField(s: string): string {
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * RFC 4180 text of a header and rows, `\n` line ends, a final newline (a field is quoted
 * exactly when it holds a comma, a quote or a line break; test/electron/release/format.test.ts).
 * Written by hand: a CSV library's per-field machinery (csv-stringify) was the export's hot
 * spot, ~1 s of the ~145k-row per_item.csv.
 */
export function csvText(header: readonly string[], rows: Iterable<readonly CsvCell[]>): string {
  const out: string[] = [header.map(csvField).join(',')];
  for (const r of rows) {
    let line = '';
    for (let i = 0; i < r.length; i++) {
      const v = r[i];
      const t = v === null || v === undefined ? '' : typeof v === 'number' ? formatNumber(v) : NEEDS_QUOTES.test(v) ? csvField(v) : v;
      line = i === 0 ? t : `${line},${t}`;
    }
    out.push(line);
  }
  return out.join('\n') + '\n';
}
