/**
 * The header of a per_item.csv (docs/release-format.md "labels/per_item.csv"): which columns
 * it has and where, as the row code reads them. An unknown column is refused, a missing
 * required one too; a column named twice is read from its first copy (header.ts checks the
 * copies agree).
 */
import { PER_ITEM_COLUMNS, PER_ITEM_OPTIONAL_COLUMNS } from '../../shared/release/per-item-columns';
import { ImportError } from './errors';
import type { Header } from './header';

/** docs/release-format.md: the eleven columns of labels/per_item.csv. */
export const PER_ITEM_REQUIRED = PER_ITEM_COLUMNS;

/** The documented optional columns Flipbook may append. Anything else is rejected. */
export const PER_ITEM_OPTIONAL = PER_ITEM_OPTIONAL_COLUMNS;

export type Column = (typeof PER_ITEM_REQUIRED)[number] | (typeof PER_ITEM_OPTIONAL)[number];

const KNOWN = new Set<string>([...PER_ITEM_REQUIRED, ...PER_ITEM_OPTIONAL]);

/** Column positions by name; a column named twice is read from its first copy (Header checks the copies agree). */
export function readHeader(file: string, header: Header): Record<Column, number> {
  const idx = {} as Record<Column, number>;
  for (const c of PER_ITEM_OPTIONAL) idx[c] = -1;
  for (const name of header.names) {
    const i = header.index(name);
    if (!KNOWN.has(name)) {
      throw new ImportError(
        file,
        1,
        name,
        `unknown header "${name}" (column ${i + 1}); per_item.csv takes ${PER_ITEM_REQUIRED.join(', ')} ` + `and optionally ${PER_ITEM_OPTIONAL.join(', ')}`,
      );
    }
    idx[name as Column] = i;
  }
  for (const c of PER_ITEM_REQUIRED) {
    if (idx[c] === undefined) throw new ImportError(file, 1, c, `missing required header "${c}"`);
  }
  return idx;
}

/** Column positions of one file, after its header. */
export interface Layout {
  width: number;
  idx: Record<Column, number>;
  header: Header;
  /** A column is named twice (Header checks the copies agree on every row). */
  copies: boolean;
}
