/** Browser downloads for chart exports (PNG/SVG/CSV). */
import { csvText } from '../../../shared/release/csv';

export function downloadUrl(name: string, url: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

export function downloadText(name: string, text: string, mime: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${mime};charset=utf-8` }));
  downloadUrl(name, url);
  // The click has started the download; revoke on the next turn so the URL is not leaked.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** A table (header row first) as CSV, written by the release's CSV writer (shared/release/csv.ts). */
export function toCsv(rows: (string | number | null)[][]): string {
  const [header = [], ...body] = rows;
  return csvText(
    header.map((h) => (h === null ? '' : String(h))),
    body,
  );
}
