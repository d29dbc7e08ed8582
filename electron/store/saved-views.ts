/** The project's saved views (of the queue and the overview): one row per name. */
import type Database from 'better-sqlite3';
import * as z from 'zod';
import type { SavedView, SavedViews } from './project';

const savedViewRow = z.object({ id: z.number(), name: z.string(), json: z.string(), created_at: z.string(), updated_at: z.string() });

export function createSavedViews(db: Database.Database, assertWritable: () => void): SavedViews {
  const toView = (r: unknown): SavedView => {
    const row = savedViewRow.parse(r);
    return { id: row.id, name: row.name, value: JSON.parse(row.json) as unknown, createdAt: row.created_at, updatedAt: row.updated_at };
  };
  return {
    list: () => db.prepare('SELECT * FROM saved_views ORDER BY name').all().map(toView),
    save(name, value) {
      assertWritable();
      if (!name.trim()) throw new Error('a saved view needs a name');
      const now = new Date().toISOString();
      db.prepare(
        `INSERT INTO saved_views (name, json, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at`,
      ).run(name, JSON.stringify(value), now, now);
      return toView(db.prepare('SELECT * FROM saved_views WHERE name = ?').get(name));
    },
    rename(id, name) {
      assertWritable();
      if (!name.trim()) throw new Error('a saved view needs a name');
      db.prepare('UPDATE saved_views SET name = ?, updated_at = ? WHERE id = ?').run(name, new Date().toISOString(), id);
    },
    delete(id) {
      assertWritable();
      db.prepare('DELETE FROM saved_views WHERE id = ?').run(id);
    },
  };
}
