/**
 * What a model or split name may be. The release export turns them into file names
 * (`labels/aggregated/<model>_<split>.json`, docs/release-format.md), so a name must be a
 * safe file-name part on Windows, macOS and Linux alike (docs/security.md "Names"): the
 * import refuses the others, and the export writer refuses any path that would leave its
 * output folder whatever a project holds (a project written by an older Flipbook).
 */

/**
 * Windows' reserved device names: reserved with any extension too (`NUL.txt`), in any case.
 * COM and LPT take a digit or a superscript 1–3 (written as escapes, U+00B9 U+00B2 U+00B3: the
 * CLI's build is kept ASCII, docs/architecture.md "CLI start-up").
 */
const RESERVED = /^(?:CON|PRN|AUX|NUL|COM[0-9\u00b9\u00b2\u00b3]|LPT[0-9\u00b9\u00b2\u00b3])(?:\..*)?$/i;
/** Path separators, characters Windows forbids in a file name, and control characters. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const FORBIDDEN = /[/\\<>:"|?*\u0000-\u001f\u007f]/u;
/** A UTF-16 surrogate without its pair (not a character; not encodable as UTF-8). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Bytes of UTF-8: most file systems cap a file name at 255 bytes; the longest file built from a name adds `_predictions_wide.csv`. */
export const MAX_NAME_BYTES = 100;

/** Why `name` cannot be a model/split name, or null when it can. */
export function unsafeNameReason(name: string): string | null {
  if (name.length === 0) return 'is empty';
  const bad = FORBIDDEN.exec(name);
  if (bad) {
    const ch = bad[0];
    const shown = ch.charCodeAt(0) < 0x20 || ch === '\u007f' ? `control character U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : `"${ch}"`;
    return `"${cut(name)}" holds ${shown}, which cannot be part of a file name`;
  }
  if (name === '.' || name === '..' || name.includes('..')) return `"${cut(name)}" holds "..", which names a parent folder`;
  if (/[. ]$/.test(name)) return `"${cut(name)}" ends with a dot or a space, which Windows drops from file names`;
  if (/^ /.test(name)) return `"${cut(name)}" starts with a space`;
  if (RESERVED.test(name)) return `"${cut(name)}" is a reserved device name on Windows`;
  if (LONE_SURROGATE.test(name)) return `"${cut(name)}" holds an unpaired surrogate (not valid Unicode)`;
  const bytes = utf8Bytes(name);
  if (bytes > MAX_NAME_BYTES) return `"${cut(name)}" is ${bytes} bytes of UTF-8; a name is at most ${MAX_NAME_BYTES}`;
  return null;
}

/** UTF-8 length of a well-formed string (shared/ has no TextEncoder). */
function utf8Bytes(s: string): number {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

function cut(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

/**
 * Why a `/`-separated relative path (an export's file) is unsafe to write below a folder, or
 * null: every part must be a safe file name and none may be `.`/`..`/empty.
 */
export function unsafeRelativePathReason(rel: string): string | null {
  if (rel.length === 0) return 'is empty';
  for (const part of rel.split('/')) {
    if (part === '' || part === '.' || part === '..') return `"${rel}" has a part "${part}" (an absolute path, or one that leaves its folder)`;
    const r = unsafeNameReason(part);
    if (r !== null && !r.includes('bytes of UTF-8')) return r;
    if (utf8Bytes(part) > 255) return `"${cut(part)}" is longer than a file name may be (255 bytes)`;
  }
  return null;
}
