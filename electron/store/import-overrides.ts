/**
 * Overrides from the command line or the import dialog (`--model`, `--split`, `--config`)
 * applied to one importer batch. Pure: returns the batch's rows, columns, config specs and
 * items under their new names, or throws an ImportError when `--config` cannot apply.
 */
import { ImportError } from '../importers/errors';
import type { ConfigSpec, ImportBatch, ItemMeta, ResponseColumnBatch, ResponseRow } from '../../shared/domain/types';

export interface ImportOverrides {
  model?: string;
  split?: string;
  config?: string;
}

export interface OverriddenBatch {
  rows: ResponseRow[];
  cols: ResponseColumnBatch[];
  specs: ConfigSpec[];
  items: ItemMeta[];
}

/**
 * A batch carries its responses either as rows or (per_item.csv) as columns; `columns` wins
 * when present. `--config` renames the one config a file holds (a file with several is refused).
 */
export function applyOverrides(batch: ImportBatch, opts: ImportOverrides): OverriddenBatch {
  const file = batch.run.sourcePath;
  let rows: ResponseRow[] = batch.columns ? [] : batch.responses;
  let cols: ResponseColumnBatch[] = batch.columns ?? [];
  let specs: ConfigSpec[] = batch.configs;
  if (opts.config) {
    const keys = new Set([...rows.map((r) => r.config), ...cols.map((c) => c.config)]);
    if (keys.size > 1) {
      throw new ImportError(file, 0, 'config', `--config names one config but this file holds ${keys.size} (${[...keys].sort().join(', ')})`);
    }
    const [from] = [...keys];
    const spec = specs.find((c) => c.key === from) ?? specs[0];
    specs = spec ? [{ ...spec, key: opts.config }] : [];
    rows = rows.map((r) => ({ ...r, config: opts.config! }));
    cols = cols.map((c) => ({ ...c, config: opts.config! }));
  }
  if (opts.model || opts.split) {
    rows = rows.map((r) => ({ ...r, model: opts.model ?? r.model, split: opts.split ?? r.split }));
    cols = cols.map((c) => ({ ...c, model: opts.model ?? c.model, split: opts.split ?? c.split }));
  }
  const items = opts.split ? batch.items.map((it) => ({ ...it, split: opts.split! })) : batch.items;
  return { rows, cols, specs, items };
}
