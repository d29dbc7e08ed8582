/**
 * An import's counts as a sentence a user checks against what they imported: configs are
 * counted as configs, with the splits and models they came in — "4 configs in 2 splits" — and
 * the (model, split, config) grid columns they added beside it, never a product that reads as
 * a config count ("added 8 configs" for 4 configs × 2 splits).
 */
import type { ImportSummary } from './contract';

const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;

export function importSummaryText(s: ImportSummary): string {
  const parts = [`added ${n(s.itemsAdded, 'item')}, ${n(s.responsesAdded, 'response')}`];
  if (s.itemsUpdated > 0 || s.responsesUpdated > 0) parts.push(`updated ${n(s.itemsUpdated, 'item')}, ${n(s.responsesUpdated, 'response')}`);
  if (s.configs.length > 0) {
    parts.push(
      `${n(s.configs.length, 'config')} in ${n(s.splits.length, 'split')} of ${n(s.models.length, 'model')}` +
        (s.configsAdded > 0 ? ` (${n(s.configsAdded, 'new grid column')}: model × split × config)` : ' (no new grid column)'),
    );
  } else if (s.splits.length > 0) parts.push(`metadata of ${n(s.splits.length, 'split')}`);
  return parts.join('; ');
}
