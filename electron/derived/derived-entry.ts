/**
 * One entry of the project's `derived` table (electron/store/migrations/0030-derived.sql,
 * 0040-queue-columns.sql): a value computed from the data, stamped with the inputs version it
 * was computed at, so it is recomputed only after an import or a settings write
 * (docs/architecture.md "The queue at lab scale"). Small values (the overview's figures) are
 * JSON text; the queue's rows are one BLOB (`data`).
 */
import type Database from 'better-sqlite3';

export interface DerivedEntry {
  /** The stored entry, if any: its inputs version and JSON text (NULL only for the 'inputs' counter). */
  read(): { inputs: number; json: string | null } | undefined;
  write(inputs: number, value: unknown): void;
  /** The inputs version the entry was computed at, without reading its value. */
  inputs(): number | undefined;
  /** The stored BLOB, if any. */
  readData(): { inputs: number; data: Buffer } | undefined;
  writeData(inputs: number, data: Uint8Array): void;
}

export function derivedEntry(db: Database.Database, name: string): DerivedEntry {
  const get = db.prepare<[string], { inputs: number; json: string | null }>('SELECT inputs, json FROM main.derived WHERE name = ?');
  const put = db.prepare<[string, number, string]>(
    'INSERT INTO main.derived (name, inputs, json) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET inputs = excluded.inputs, json = excluded.json',
  );
  const getInputs = db.prepare<[string], number>('SELECT inputs FROM main.derived WHERE name = ?').pluck(true);
  const getData = db.prepare<[string], { inputs: number; data: Buffer }>('SELECT inputs, data FROM main.derived WHERE name = ? AND data IS NOT NULL');
  const putData = db.prepare<[string, number, Uint8Array]>(
    'INSERT INTO main.derived (name, inputs, data) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET inputs = excluded.inputs, data = excluded.data',
  );
  return {
    read: () => get.get(name),
    write: (inputs, value) => void put.run(name, inputs, JSON.stringify(value)),
    inputs: () => getInputs.get(name),
    readData: () => getData.get(name),
    writeData: (inputs, data) => void putData.run(name, inputs, data),
  };
}
