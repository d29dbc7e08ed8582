/**
 * The Project object over an open connection (project.ts opens or creates the file, then calls
 * createProject): it prepares the statements once and wires the store's parts — the import
 * applier (import-apply.ts), the matrix loader (matrix-load.ts), the annotation store
 * (annotations.ts), the reads of items, runs and cells (project-reads.ts) and the saved views
 * (saved-views.ts).
 */
import type Database from 'better-sqlite3';
import type { Codebook } from '../../shared/domain/annotations';
import type { ImportBatch } from '../../shared/domain/types';
import { configOrder } from '../../shared/engine/config';
import { defaultMainProtocol, MAIN_PROTOCOL_SETTING } from '../../shared/engine/protocols';
import { createAnnotationStore } from './annotations';
import { scanColumns } from './column-scan';
import { scanOutcomes } from './outcome-scan';
import { checkDerivedIds } from './derived-ids';
import { ProjectReadOnlyError } from './errors';
import { createImportApplier, type ImportOverrides, type ImportSummary } from './import-apply';
import { nearDuplicateConfigWarnings } from './import-configs';
import { assertSafeNames } from './import-names';
import type { ProjectLock } from './lock';
import { createMatrixLoader, GRID_CONFIGS_SQL, specFromRow, type GridConfigRow } from './matrix-load';
import type { MigrationResult } from './migrate';
import { loadDefaultCodebook } from './default-codebook';
import type { GridInfo, Project } from './project';
import { gridRecords, itemFromRow, listItems, listRuns, readGrids, type ItemRow } from './project-reads';
import type { ColumnRow } from './response-columns';
import { createSavedViews } from './saved-views';
import { applyVideoCaches, videoCachesOf } from './video-caches';

export function createProject(
  db: Database.Database,
  file: string,
  readOnly: boolean,
  lock: ProjectLock | null,
  migration: MigrationResult | null,
  opts: { checkpointOnClose: boolean } = { checkpointOnClose: true },
): Project {
  const assertWritable = (): void => {
    if (readOnly) throw new ProjectReadOnlyError(file);
  };
  const applier = createImportApplier(db);
  const loadMatrices = createMatrixLoader(db, () => project.mainProtocol().name);
  // The asset is read and checked only when used: a project with a codebook of its own never
  // needs it, and parsing it took ~5 ms of every open (every export among them).
  let defaultCodebook: Codebook | null | undefined;
  const theDefaultCodebook = (): Codebook | null => (defaultCodebook === undefined ? (defaultCodebook = loadDefaultCodebook()) : defaultCodebook);
  if (!readOnly) seedDefaultCodebook(db, theDefaultCodebook);
  const annotations = createAnnotationStore(db, { readOnly, assertWritable, defaultCodebook: theDefaultCodebook });

  const q = {
    setting: db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?'),
    settingPut: db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    settingDelete: db.prepare('DELETE FROM settings WHERE key = ?'),
    gridIds: db.prepare<[string, string], { model_id: number; split_id: number }>(
      'SELECT m.id AS model_id, s.id AS split_id FROM models m, splits s WHERE m.name = ? AND s.name = ?',
    ),
    gridConfigs: db.prepare<[number, number], GridConfigRow>(GRID_CONFIGS_SQL),
    item: db.prepare<[string, string], ItemRow>('SELECT i.*, s.name AS split FROM items i JOIN splits s ON s.id = i.split_id WHERE s.name = ? AND i.sample_id = ?'),
    media: db.prepare<[string], { path: string; size: number; mtime_ms: number; head_tail_hash: string; json: string }>('SELECT * FROM media WHERE path = ?'),
    mediaPut: db.prepare('INSERT OR REPLACE INTO media (path, size, mtime_ms, head_tail_hash, json) VALUES (?, ?, ?, ?, ?)'),
    inputs: db.prepare<[], number>("SELECT inputs FROM main.derived WHERE name = 'inputs'").pluck(true),
    inputsBump: db.prepare("UPDATE main.derived SET inputs = inputs + 1 WHERE name = 'inputs'"),
  };

  const names = {
    models: db.prepare<[], [number, string]>('SELECT id, name FROM models'),
    splits: db.prepare<[], [number, string]>('SELECT id, name FROM splits'),
    configs: db.prepare<[], [number, string]>('SELECT id, key FROM configs ORDER BY key'),
    itemsOfSplit: db.prepare<[number], [number, string]>('SELECT id, sample_id FROM items WHERE split_id = ? ORDER BY sample_id'),
    columnsOfGrid: db.prepare<[number, number], ColumnRow>('SELECT * FROM response_columns WHERE model_id = ? AND split_id = ?'),
    runSources: db.prepare<[], [number, string]>('SELECT id, source_path FROM runs'),
    grids: db.prepare<[], [number, number, string, string]>(
      `SELECT DISTINCT g.model_id, g.split_id, m.name, s.name FROM response_columns g JOIN models m ON m.id = g.model_id JOIN splits s ON s.id = g.split_id
       ORDER BY m.name, s.name`,
    ),
  };

  const grids = new KeptGrids(db, q.gridConfigs, () => project.inputsVersion());
  const usedConfigKeys = db.prepare<[], string>('SELECT DISTINCT c.key FROM response_columns g JOIN configs c ON c.id = g.config_id').pluck(true);

  const project: Project = {
    path: file,
    readOnly,
    migration,
    db,
    close: () => closeProject(db, !readOnly && opts.checkpointOnClose, lock),

    applyImport: (batch, opts) => project.applyImports([batch], opts),
    applyImports(batches, opts) {
      assertWritable();
      return applyImportsInOne(db, applier, q.inputsBump, batches, opts);
    },

    inputsVersion: () => q.inputs.get() ?? 0,
    mainProtocol() {
      const v = project.getSetting<unknown>(MAIN_PROTOCOL_SETTING);
      if (typeof v === 'string') return { name: v, source: 'setting' };
      return { name: defaultMainProtocol(usedConfigKeys.all()), source: 'default' };
    },
    listGrids(opts = {}) {
      const main = opts.allProtocols ? null : (opts.protocol ?? project.mainProtocol().name);
      return grids.list(main);
    },
    loadMatrix: (model, split, opts) => loadMatrices([{ model, split }], opts)[0]!,
    loadMatrices,
    scanColumns: () => scanColumns(db),
    scanOutcomes: () => scanOutcomes(db, project.mainProtocol().name),
    listConfigs() {
      return (db.prepare('SELECT * FROM configs ORDER BY key').all() as GridConfigRow[]).map(specFromRow);
    },
    gridConfigs(model, split) {
      const ids = q.gridIds.get(model, split);
      return ids ? configOrder(q.gridConfigs.all(ids.model_id, ids.split_id).map(specFromRow)) : [];
    },
    listModels: () => db.prepare('SELECT name FROM models ORDER BY name').pluck().all() as string[],
    listSplits: () => db.prepare('SELECT name FROM splits ORDER BY name').pluck().all() as string[],
    listRuns: () => listRuns(db),

    getSetting<T>(key: string): T | undefined {
      const row = q.setting.get(key);
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    setSetting(key, value) {
      assertWritable();
      if (value === undefined) throw new Error(`setting "${key}": undefined is not a value (use deleteSetting)`);
      q.settingPut.run(key, JSON.stringify(value));
      q.inputsBump.run();
    },
    deleteSetting(key) {
      assertWritable();
      q.settingDelete.run(key);
      q.inputsBump.run();
    },

    videoCaches: (videoId) => videoCachesOf(db, videoId),
    getItem(split, sampleId) {
      const row = q.item.get(split, sampleId);
      return row ? itemFromRow(row) : undefined;
    },
    countItems: () => db.prepare<[], number>('SELECT count(*) FROM items').pluck(true).get() ?? 0,
    listItems: (filter) => listItems(db, filter),
    responsesForItem(model, split, sampleId) {
      const ids = q.gridIds.get(model, split);
      if (!ids) return [];
      const rows = gridRecords(names, ids.model_id, ids.split_id, model, split, sampleId);
      const order = new Map(project.gridConfigs(model, split).map((c, i) => [c.key, i] as const));
      return rows.sort((a, b) => (order.get(a.config) ?? 1e9) - (order.get(b.config) ?? 1e9));
    },
    *iterateResponses(filter = {}) {
      // One grid decoded at a time: memory stays that of one grid, not of the project.
      for (const [modelId, splitId, model, split] of names.grids.raw(true).all() as [number, number, string, string][]) {
        if (filter.model !== undefined && model !== filter.model) continue;
        if (filter.split !== undefined && split !== filter.split) continue;
        yield* gridRecords(names, modelId, splitId, model, split);
      }
    },

    annotations,
    views: createSavedViews(db, assertWritable),
    getMedia(p) {
      const row = q.media.get(p);
      return row ? { path: row.path, size: row.size, mtimeMs: row.mtime_ms, headTailHash: row.head_tail_hash, json: JSON.parse(row.json) as unknown } : undefined;
    },
    putMedia(e) {
      assertWritable();
      q.mediaPut.run(e.path, e.size, e.mtimeMs, e.headTailHash, JSON.stringify(e.json));
    },
  };
  return project;
}

/** Closes the connection, folding the WAL back first when `checkpoint`, and gives the writer lock back. */
function closeProject(db: Database.Database, checkpoint: boolean, lock: ProjectLock | null): void {
  if (db.open) {
    if (checkpoint) {
      try {
        // Fold the WAL back so the .flipbook file alone is the whole project after a clean close.
        db.pragma('wal_checkpoint(TRUNCATE)');
      } catch {
        /* another reader holds the WAL; SQLite checkpoints later */
      }
    }
    db.close();
  }
  lock?.release();
}

/**
 * The grids (Project.listGrids), kept. Asked on every project:info and view; the distinct items
 * need every column's item-id BLOB decoded, so the answer is kept until an import or a settings
 * write (in any process) bumps the inputs version. Copies go out: a caller sorting or editing
 * its list cannot change the kept one. Nothing is kept from inside a transaction: it may roll
 * back, and the next import would then reach the same version number with other grids.
 */
class KeptGrids {
  private kept: { version: number; main: string | null; grids: GridInfo[] } | null = null;

  constructor(
    private readonly db: Database.Database,
    private readonly gridConfigs: Database.Statement<[number, number], GridConfigRow>,
    private readonly inputsVersion: () => number,
  ) {}

  /** The grids with the configs of protocol `main` (null: every config). */
  list(main: string | null): GridInfo[] {
    if (this.db.inTransaction) return readGrids(this.db, this.gridConfigs, main);
    const version = this.inputsVersion();
    if (this.kept?.version !== version || this.kept.main !== main) this.kept = { version, main, grids: readGrids(this.db, this.gridConfigs, main) };
    return this.kept.grids.map((g) => ({ ...g, configs: [...g.configs], protocols: [...g.protocols] }));
  }
}

/** A writable project without a codebook gets the default one (assets/codebook.json), stored as-is. */
function seedDefaultCodebook(db: Database.Database, defaultCodebook: () => Codebook | null): void {
  if (!db.prepare('SELECT 1 FROM codebooks LIMIT 1').get()) {
    const codebook = defaultCodebook();
    if (codebook) {
      db.prepare('INSERT INTO codebooks (version, codebook_id, json, created_at) VALUES (?, ?, ?, ?)').run(
        codebook.version,
        codebook.id,
        JSON.stringify(codebook),
        new Date().toISOString(),
      );
    }
  }
}

/**
 * Several batches in ONE transaction (Project.applyImports): names checked, derived item ids
 * checked, the batches applied, video caches recorded and the inputs version bumped, all or
 * nothing.
 */
function applyImportsInOne(
  db: Database.Database,
  applier: (batches: ImportBatch[], opts?: ImportOverrides) => ImportSummary,
  inputsBump: Database.Statement,
  batches: ImportBatch[],
  opts: ImportOverrides | undefined,
): ImportSummary {
  // Names become file names in an export: refused here, for every importer, before any write.
  assertSafeNames(batches, opts);
  return db.transaction(() => {
    // Derived item ids are checked against known question text before anything is written.
    const notes = checkDerivedIds(db, batches, opts);
    const nearDuplicates = nearDuplicateConfigWarnings(db, batches);
    const summary = applier(batches, opts);
    summary.warnings.push(...nearDuplicates);
    const caches = applyVideoCaches(db, batches);
    if (caches > 0) summary.videoCachesAdded = caches;
    inputsBump.run();
    summary.warnings.push(...notes);
    return summary;
  })();
}
