/**
 * The one gate model and split names pass on their way into a project: every importer's
 * batches go through Project.applyImports, which calls this before anything is written
 * (docs/security.md "Names"). A name that cannot be a file name on Windows, macOS and Linux
 * is refused as `file:line: field: reason`, naming its first line.
 */
import { unsafeNameReason } from '../../shared/domain/names';
import type { ImportBatch } from '../../shared/domain/types';
import { ImportError } from '../importers/errors';
import type { ImportOverrides } from './import-apply';

export function assertSafeNames(batches: readonly ImportBatch[], opts: ImportOverrides = {}): void {
  for (const [flag, v] of [
    ['--model', opts.model],
    ['--split', opts.split],
  ] as const) {
    const why = v === undefined ? null : unsafeNameReason(v);
    if (why !== null) throw new ImportError(flag, 0, flag.slice(2), why);
  }
  for (const b of batches) {
    const file = b.run.sourcePath;
    const checked = new Set<string>();
    const check = (field: 'model' | 'split', name: string, line: number): void => {
      const key = `${field}\u0000${name}`;
      if (checked.has(key)) return;
      checked.add(key);
      const why = unsafeNameReason(name);
      if (why !== null) throw new ImportError(file, line, field, why);
    };
    // A batch carries its responses as columns when it has them (`responses` is then built
    // on first read: not touched here).
    if (b.columns) {
      for (const c of b.columns) {
        const line = c.length > 0 ? c.line[0]! : 0;
        if (opts.model === undefined) check('model', c.model, line);
        if (opts.split === undefined) check('split', c.split, line);
      }
    } else {
      let prevModel: string | null = null;
      let prevSplit: string | null = null;
      for (const r of b.responses) {
        if (r.model !== prevModel && opts.model === undefined) check('model', (prevModel = r.model), r.line);
        if (r.split !== prevSplit && opts.split === undefined) check('split', (prevSplit = r.split), r.line);
      }
    }
    // Items after responses: a response names its line, an item of some importers does not.
    // Items come grouped by split, so a name is checked where it changes (a 145k-row
    // per_item.csv has ~5k items: a key string and a Set lookup each were ~5 ms of an import).
    if (opts.split === undefined) {
      let prevSplit: string | null = null;
      for (let i = 0; i < b.items.length; i++) {
        const it = b.items[i]!;
        if (it.split !== prevSplit) check('split', (prevSplit = it.split), it.line ?? 0);
      }
    }
  }
}
