/**
 * docs/release-format.md's layout — its first code block, one path per line, in its order — as
 * the spec's own list of the files an export writes, for the tests that check the code's lists
 * against it. Paths with `<model>_<split>` stand for one file per grid.
 */
import fs from 'node:fs';
import path from 'node:path';

export function specLayout(): string[] {
  const doc = fs.readFileSync(path.join(__dirname, '../../../docs/release-format.md'), 'utf8');
  const block = /```\n<release>\/\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/release-format.md: no layout block');
  return block[1]!
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0]!)
    .filter((p) => p !== '');
}
