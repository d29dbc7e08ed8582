/**
 * A byte-stable zip of the release: entries in path order, one fixed timestamp, fixed
 * compression level and attributes, so zipping the same files twice gives the same bytes.
 */
import { zipSync, type Zippable } from 'fflate';
import { compareCodePoints } from './format';

export interface ReleaseFile {
  /** Path inside the release, `/`-separated (e.g. `labels/per_item.csv`). */
  path: string;
  data: Uint8Array;
}

/**
 * 1980-01-01 00:00 in local time: the earliest DOS date. fflate encodes the local
 * date/time fields of the Date it gets, so a local-time constructor gives the same bytes in
 * every time zone (a UTC instant would not).
 */
function fixedMtime(): Date {
  return new Date(1980, 0, 1, 0, 0, 0, 0);
}

export function zipRelease(files: readonly ReleaseFile[]): Uint8Array {
  const mtime = fixedMtime();
  const entries: Zippable = {};
  for (const f of files.slice().sort((a, b) => compareCodePoints(a.path, b.path))) {
    // Entries at the top level (`labels/per_item.csv`), exactly the folder layout.
    entries[f.path] = [f.data, { level: 6, mtime, os: 3, attrs: 0o100644 << 16 }];
  }
  // Each entry carries all its options, so the archive-wide ones would change nothing.
  return zipSync(entries);
}
