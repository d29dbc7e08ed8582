/**
 * One entry of the project's `derived` table (electron/store/migrations/0030-derived.sql): a
 * small value computed from the data, stamped with the inputs version it was computed at, so
 * it is recomputed only after an import or a settings write (docs/architecture.md "The queue
 * at lab scale"). The queue's facets and the overview's figures are kept this way.
 */
import type Database from 'better-sqlite3';

export interface DerivedEntry {
  /** The stored entry, if any: its inputs version and JSON text (NULL only for the 'inputs' counter). */
  read(): { inputs: number; json: string | null } | undefined;
  write(inputs: number, value: unknown): void;
}

export function derivedEntry(db: Database.Database, name: string): DerivedEntry {
  const get = db.prepare<[string], { inputs: number; json: string | null }>('SELECT inputs, json FROM main.derived WHERE name = ?');
  const put = db.prepare<[string, number, string]>(
    'INSERT INTO main.derived (name, inputs, json) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET inputs = excluded.inputs, json = excluded.json',
  );
  return {
    read: () => get.get(name),
    write: (inputs, value) => void put.run(name, inputs, JSON.stringify(value)),
  };
}
