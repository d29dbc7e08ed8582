/**
 * A small SQLite page cache for work that touches most pages of a project once: filling a new
 * project (createProjectWith) and the export's column scan (column-scan.ts).
 */
import type Database from 'better-sqlite3';

/**
 * Runs `work` with a 256 KiB page cache, then restores the connection's own. With
 * better-sqlite3's default cache (16 MiB; SQLite's own is 2 MiB) every page written or read got
 * a buffer of its own that nothing used again — ~1.6k fresh buffers in a 145k-row import, ~770
 * in its export, each a first-touch page fault (~12 µs on this project's machines,
 * docs/architecture.md "Import at lab scale"); with the small cache SQLite writes pages out
 * sooner and reuses its buffers.
 */
export function withSmallPageCache<T>(db: Database.Database, work: () => T): T {
  const own = db.pragma('cache_size', { simple: true }) as number;
  db.pragma('cache_size = -256');
  try {
    return work();
  } finally {
    db.pragma(`cache_size = ${own}`);
  }
}
