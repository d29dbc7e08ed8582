/**
 * A Flipbook project: one SQLite file (`*.flipbook`) opened by one process at a time.
 * See docs/architecture.md (Data). Everything the app, the CLI and the web mode
 * know about a project goes through this object.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import * as z from 'zod';
import { codebookSchema, type Codebook } from '../../shared/domain/annotations';
import type { ConfigSpec, ImportBatch, ItemMeta, ResponseMatrix, ResponseRow, TaskKind, VideoCache } from '../../shared/domain/types';
import { applyVideoCaches, videoCachesOf } from './video-caches';
import { nearDuplicateConfigWarnings } from './import-configs';
import { gridScore, scoreSourceOf } from '../../shared/domain/score';
import { parseContext } from '../../shared/domain/item-context';
import { configOrder } from '../../shared/engine/config';
import { defaultMainProtocol, MAIN_PROTOCOL_SETTING, protocolsOf } from '../../shared/engine/protocols';
import { createAnnotationStore, type AnnotationStore } from './annotations';
import { scanColumns, type ScannedGrid } from './column-scan';
import { scanOutcomes, type OutcomeScan } from './outcome-scan';
import { checkDerivedIds } from './derived-ids';
import { namingStorage, ProjectForeignError, ProjectLockedError, ProjectNotWritableError, ProjectOpenError, ProjectReadOnlyError, ProjectVersionError } from './errors';
import { identifyProjectFile } from './identify';
import { createImportApplier, type ImportOverrides, type ImportSummary } from './import-apply';
import { assertSafeNames } from './import-names';
import { acquireLock, lockHolder, type ProjectLock } from './lock';
import { removeStaleTemps } from './process-alive';
import { sqliteBinding } from './sqlite-binding';
import { createMatrixLoader, GRID_CONFIGS_SQL, keptSpecs, specFromRow, type GridConfigRow, type GridRef, type LoadOptions } from './matrix-load';
import { withSmallPageCache } from './page-cache';
import { checkVersion, latestVersion, migrate, type MigrationResult } from './migrate';
import { type ColumnRow, decodeColumn, decodeInt32, distinctStrings, floatAt } from './response-columns';

export interface OpenProjectOptions {
  /** Create the file when it does not exist. */
  create?: boolean;
  /** Open without the writer lock; every write throws ProjectReadOnlyError. */
  readOnly?: boolean;
  /**
   * Open writable under the writer lock THIS process already holds (a job's worker thread
   * writing for the backend that opened the project: docs/architecture.md "Long work is a
   * job"). Refused with ProjectLockedError unless the lock's holder is this process. The
   * project is not migrated (its owner did that) and its close leaves the WAL checkpoint to
   * the owner (a checkpoint would wait on the owner's readers).
   */
  underHeldLock?: boolean;
}

export interface GridInfo {
  model: string;
  split: string;
  kind: TaskKind;
  /** In config order: the main protocol's configs (every config with `allProtocols`). */
  configs: ConfigSpec[];
  /** Items with at least one response among `configs`. */
  nItems: number;
  nCells: number;
  /** Which score the grid holds (shared/domain/score.ts gridScore): `correct`, `token_f1`, a file's own field. */
  score: string;
  /** Every protocol the grid's configs belong to ('' = untagged), in code-point order. */
  protocols: string[];
}

/** The project's main protocol (docs/metrics.md §6) and whether a setting or the default rule chose it. */
export interface MainProtocol {
  name: string;
  source: 'setting' | 'default';
}

export interface ItemFilter {
  split?: string;
  sampleIds?: string[];
  taskType?: string;
  hasVideo?: boolean;
}

/** One stored response with its provenance: the imported row, plus where it came from. */
export interface ResponseRecord extends Omit<ResponseRow, 'line'> {
  /** Source file of the run that wrote the cell, and its line there. */
  source: string | null;
  line: number | null;
}

export interface RunRecord {
  id: number;
  sourcePath: string;
  sha256: string;
  format: string;
  toolkit: string | null;
  modelArgs: string | null;
  importedAt: string;
  nItems: number;
  nResponses: number;
  nConfigs: number;
}

export interface SavedView {
  id: number;
  name: string;
  value: unknown;
  createdAt: string;
  updatedAt: string;
}

export interface SavedViews {
  list(): SavedView[];
  /** Creates or replaces the view of that name. */
  save(name: string, value: unknown): SavedView;
  rename(id: number, name: string): void;
  delete(id: number): void;
}

/** Video metadata cache row (frames engine): valid while size, mtime and the head/tail hash match. */
export interface MediaEntry {
  path: string;
  size: number;
  mtimeMs: number;
  headTailHash: string;
  json: unknown;
}

export interface Project {
  readonly path: string;
  readonly readOnly: boolean;
  /** Set when opening upgraded the schema. */
  readonly migration: MigrationResult | null;
  /** The underlying connection, for services with their own queries and transactions (team sync, imports). */
  readonly db: Database.Database;
  close(): void;

  applyImport(batch: ImportBatch, opts?: ImportOverrides): ImportSummary;
  /** Several batches in ONE transaction: all of them or none. */
  applyImports(batches: ImportBatch[], opts?: ImportOverrides): ImportSummary;

  /**
   * Changes whenever something derived views depend on changes (an import, a settings write),
   * in any process: caches derived from the data compare it (docs/architecture.md "The queue at
   * lab scale").
   */
  inputsVersion(): number;

  /** The main protocol: every headline number is computed on its grid alone (docs/metrics.md §6). */
  mainProtocol(): MainProtocol;
  /**
   * The (model, split) grids, each with the main protocol's configs; a grid without any is left
   * out. With `allProtocols`, every grid with every config.
   */
  listGrids(opts?: LoadOptions): GridInfo[];
  /** The main protocol's matrix of one grid (every config with `allProtocols`). */
  loadMatrix(model: string, split: string, opts?: LoadOptions): ResponseMatrix;
  /** Several grids' matrices at once, from one read (each split's items read once). */
  loadMatrices(grids: readonly GridRef[], opts?: LoadOptions): ResponseMatrix[];
  /**
   * Every stored cell, column-wise, grids in (model, split) and rows in sample_id code-point
   * order (column-scan.ts): what the release export and the team-sync identity walk.
   */
  scanColumns(): ScannedGrid[];
  /**
   * Every item (id, split, task type, video file, question) and every grid's outcomes on the
   * main protocol's configs, in one read transaction (outcome-scan.ts): what the audit queue
   * derives its rows from.
   */
  scanOutcomes(): OutcomeScan;
  /** Every config key known to the project, with its project-wide provenance (code-point order). */
  listConfigs(): ConfigSpec[];
  /** The configs of one (model, split) with per-grid provenance, in config order. */
  gridConfigs(model: string, split: string): ConfigSpec[];
  listModels(): string[];
  listSplits(): string[];
  listRuns(): RunRecord[];

  getSetting<T>(key: string): T | undefined;
  setSetting(key: string, value: unknown): void;
  deleteSetting(key: string): void;

  /** The frame caches of one video (cached pipelines' metadata), any rate. */
  videoCaches(videoId: string): VideoCache[];
  getItem(split: string, sampleId: string): ItemMeta | undefined;
  listItems(filter?: ItemFilter): ItemMeta[];
  /** How many items the project holds (without reading them). */
  countItems(): number;
  /** The item's responses of one model, in config order. */
  responsesForItem(model: string, split: string, sampleId: string): ResponseRecord[];
  /** Every stored response (optionally of one model/split), ordered by model, split, sample_id, config key. */
  iterateResponses(filter?: { model?: string; split?: string }): IterableIterator<ResponseRecord>;

  readonly annotations: AnnotationStore;
  readonly views: SavedViews;
  getMedia(path: string): MediaEntry | undefined;
  putMedia(entry: MediaEntry): void;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ASSETS_DIR = process.env.FLIPBOOK_ASSETS_DIR ?? path.resolve(HERE, '../../assets');

/** assets/codebook.json when present and valid; otherwise null (an empty codebook). */
export function loadDefaultCodebook(file = path.join(ASSETS_DIR, 'codebook.json')): Codebook | null {
  try {
    const parsed = codebookSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const savedViewRow = z.object({ id: z.number(), name: z.string(), json: z.string(), created_at: z.string(), updated_at: z.string() });

// SQLite URI filenames (`file:…?immutable=1`) for projects in folders this process cannot
// write (openDb). better-sqlite3 reads this once, when its first connection opens.
process.env.SQLITE_USE_URI ??= '1';

/** Every file a project at `file` has beside it (the temp copies of a creation included). */
export function projectFiles(file: string): string[] {
  return ['', '-wal', '-shm', '-journal', '.lock', '.lock.db'].map((s) => `${file}${s}`);
}

/** Why this process cannot write the project at `abs` (folder or file), or null when it can. */
function notWritable(abs: string): string | null {
  const dir = path.dirname(abs);
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    return `the folder ${dir} is not writable`;
  }
  try {
    if (fs.existsSync(abs)) fs.accessSync(abs, fs.constants.W_OK);
  } catch {
    return 'the file is not writable';
  }
  return null;
}

/**
 * The connection. Read-only in a folder this process cannot write, a WAL project whose
 * `-wal`/`-shm` are absent (it was closed cleanly) cannot be opened the usual way (SQLite
 * needs to create the `-shm`): it is opened immutable — no lock, no `-shm`, nothing written
 * (docs/security.md "Read-only locations").
 */
function openDb(abs: string, readOnly: boolean, mustExist: boolean): Database.Database {
  const native = sqliteBinding();
  const immutable = readOnly && notWritable(abs) !== null && !fs.existsSync(`${abs}-wal`);
  let db: Database.Database | null = null;
  try {
    db = immutable
      ? new Database(`${pathToFileURL(abs).href}?immutable=1`, { readonly: true, fileMustExist: true, ...native })
      : new Database(abs, { readonly: readOnly, fileMustExist: mustExist, ...native });
    db.pragma('busy_timeout = 5000');
    // Reading the header fails here (not later) for a file that is not SQLite.
    db.pragma('user_version');
    // Statement journals (and temp tables) in memory: each multi-row INSERT of an import's
    // items keeps one, and on disk they spilled to a temp file — 9.5k writes, ~40 MB, for the
    // 52k items of a 1.45M-row per_item.csv (strace), all discarded at each statement's end.
    db.pragma('temp_store = MEMORY');
    return db;
  } catch (err) {
    db?.close();
    throw new ProjectOpenError(abs, `not a Flipbook project (${err instanceof Error ? err.message : String(err)})`);
  }
}

/**
 * Write-ahead log, schema migrated; the migration when one ran. Full sync, or none for a temp
 * project that createProjectWith syncs once, complete.
 */
function prepareWritable(db: Database.Database, abs: string, synchronous: 'FULL' | 'OFF'): MigrationResult | null {
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('journal_mode = WAL');
  const migration = migrate(db, abs);
  return migration.from === migration.to ? null : migration;
}

/** The private temp name a project at `abs` is built under before it is linked into place. */
function tempProjectPath(abs: string): string {
  return path.join(path.dirname(abs), `.${path.basename(abs)}.tmp-${process.pid}`);
}

/** Makes a complete empty project at `tmp` (schema migrated, closed); the migration that made it. */
function initProjectFile(tmp: string, synchronous: 'FULL' | 'OFF' = 'FULL'): MigrationResult | null {
  for (const f of projectFiles(tmp)) fs.rmSync(f, { force: true });
  const db = openDb(tmp, false, false);
  try {
    return prepareWritable(db, tmp, synchronous);
  } finally {
    db.close();
  }
}

/**
 * Puts the finished project `tmp` at `abs` without ever replacing a file there (a hard link,
 * which fails when `abs` exists; a rename where the file system has no hard links), then
 * removes `tmp` and its side files. False when `abs` appeared meanwhile.
 */
function linkIntoPlace(tmp: string, abs: string): boolean {
  try {
    try {
      fs.linkSync(tmp, abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (fs.existsSync(abs)) return false;
      fs.renameSync(tmp, abs);
    }
    return true;
  } finally {
    for (const f of projectFiles(tmp)) fs.rmSync(f, { force: true });
  }
}

/** Waits until the file's written pages are on disk. */
function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A new project at `file`, filled by `fill` (an import), appears whole or not at all
 * (docs/security.md "The project file"): it is built under a private temp name and linked
 * into place once closed. Temp projects of killed runs are removed first.
 */
export function createProjectWith<T>(file: string, fill: (project: Project) => T): T {
  const abs = path.resolve(file);
  if (fs.existsSync(abs)) throw new ProjectOpenError(abs, 'already exists');
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  removeStaleTemps(path.dirname(abs), `.${path.basename(abs)}.tmp-`);
  const tmp = tempProjectPath(abs);
  let result: T;
  try {
    // Under its temp name the project is no one else's yet, and a crash leaves only a temp
    // that the next creation removes. So it is made, opened and filled without an fsync (there
    // were 12 before the fill: schema, first open, journal switches), and filled with a
    // rollback journal, which writes each page once (the WAL wrote every page twice — to the
    // log, then to the file at the checkpoint on close — and read it back in between); an
    // import is still one transaction that a rejected file rolls back. The file is in WAL mode
    // again, and synced once, before it is linked into place.
    // The fill writes every page once: with a small page cache (page-cache.ts).
    // A full disk or an I/O error names the project being made; nothing of it is left.
    result = namingStorage(
      abs,
      'creating the project',
      (): T => {
        initProjectFile(tmp, 'OFF');
        const project = openProjectFile(tmp, {}, 'OFF');
        let filled: T;
        try {
          project.db.pragma('journal_mode = DELETE');
          filled = withSmallPageCache(project.db, () => fill(project));
          // WAL is kept in the file; synchronous is the connection's, and this one closes now.
          project.db.pragma('journal_mode = WAL');
        } finally {
          project.close();
        }
        syncFile(tmp);
        return filled;
      },
      'nothing was created',
    );
  } catch (err) {
    for (const f of projectFiles(tmp)) fs.rmSync(f, { force: true });
    throw err;
  }
  if (!linkIntoPlace(tmp, abs)) throw new ProjectOpenError(abs, 'was created by another process meanwhile; nothing was written to it (run again)');
  return result;
}

export function openProject(file: string, opts: OpenProjectOptions = {}): Project {
  return openProjectFile(file, opts, 'FULL');
}

/** openProject, with `synchronous` for a writable connection (OFF: createProjectWith's temp project). */
function openProjectFile(file: string, opts: OpenProjectOptions, synchronous: 'FULL' | 'OFF'): Project {
  // Opening writes too (the writer lock beside the file, the WAL, a schema upgrade): a full disk
  // or an I/O error there names the project.
  return namingStorage(path.resolve(file), 'opening the project', () => openProjectFileAs(file, opts, synchronous), 'nothing was changed');
}

function openProjectFileAs(file: string, opts: OpenProjectOptions, synchronous: 'FULL' | 'OFF'): Project {
  const abs = path.resolve(file);
  const readOnly = opts.readOnly ?? false;
  const exists = fs.existsSync(abs);
  if (!exists && (!opts.create || readOnly)) throw new ProjectOpenError(abs, 'no such project file');
  if (!exists) fs.mkdirSync(path.dirname(abs), { recursive: true });
  if (!readOnly) {
    const why = notWritable(abs);
    if (why !== null) throw new ProjectNotWritableError(abs, why);
  }

  if (opts.underHeldLock) return openUnderHeldLock(abs);
  // Before the lock (which writes beside the file) and before anything is written to it.
  if (exists) refuseOthersFiles(abs);
  const lock: ProjectLock | null = readOnly ? null : acquireLock(abs);
  let db: Database.Database | null = null;
  let created: MigrationResult | null = null;
  try {
    if (!fs.existsSync(abs)) {
      // Created complete under a temp name, then linked into place: a run killed now leaves
      // no empty or half-migrated project file (only a temp the next creation removes).
      removeStaleTemps(path.dirname(abs), `.${path.basename(abs)}.tmp-`);
      const tmp = tempProjectPath(abs);
      created = initProjectFile(tmp);
      if (!linkIntoPlace(tmp, abs)) created = null; // another process made it first: theirs
    }
    db = openDb(abs, readOnly, true);
    let migration: MigrationResult | null = null;
    if (readOnly) {
      const v = checkVersion(db, abs);
      if (v === 0) throw new ProjectOpenError(abs, 'an empty project file (schema 0: its creation was interrupted); open it read-write once to initialise it');
      if (v < latestVersion()) throw new ProjectOpenError(abs, `schema ${v} needs an upgrade to ${latestVersion()}: open it once read-write`);
    } else {
      migration = prepareWritable(db, abs, synchronous) ?? created;
    }
    db.pragma('foreign_keys = ON');
    return createProject(db, abs, readOnly, lock, migration);
  } catch (err) {
    db?.close();
    lock?.release();
    throw err;
  }
}

/**
 * Another application's SQLite file, or a project of a newer Flipbook, is refused before
 * anything is written to it or beside it (identify.ts).
 */
function refuseOthersFiles(abs: string): void {
  const id = identifyProjectFile(abs);
  if (id.kind === 'foreign') throw new ProjectForeignError(abs, id.why);
  if (id.kind === 'flipbook' && id.version > latestVersion()) throw new ProjectVersionError(abs, id.version, latestVersion());
}

function openUnderHeldLock(abs: string): Project {
  const holder = lockHolder(abs);
  if (holder === null || holder.pid !== process.pid || holder.hostname !== os.hostname()) {
    throw new ProjectLockedError(abs, holder ?? { pid: -1, hostname: 'nobody', since: 'now' });
  }
  const db = openDb(abs, false, true);
  try {
    const v = checkVersion(db, abs);
    if (v !== latestVersion()) throw new ProjectOpenError(abs, `schema ${v} is not ${latestVersion()}: the project's owner opens (and migrates) it first`);
    db.pragma('foreign_keys = ON');
    return createProject(db, abs, false, null, null, { checkpointOnClose: false });
  } catch (err) {
    db.close();
    throw err;
  }
}

function createProject(
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
  if (!readOnly && !db.prepare('SELECT 1 FROM codebooks LIMIT 1').get()) {
    const codebook = theDefaultCodebook();
    if (codebook) {
      db.prepare('INSERT INTO codebooks (version, codebook_id, json, created_at) VALUES (?, ?, ?, ?)').run(
        codebook.version,
        codebook.id,
        JSON.stringify(codebook),
        new Date().toISOString(),
      );
    }
  }
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
  const idMap = (stmt: Database.Statement<[], [number, string]>): Map<number, string> => new Map(stmt.raw(true).all());

  /**
   * The records of one grid, ordered by sample_id then config key (SQLite BINARY order, as
   * the row-per-cell schema's ORDER BY gave), optionally of one item only.
   */
  function gridRecords(modelId: number, splitId: number, model: string, split: string, onlySample?: string): ResponseRecord[] {
    const cols = names.columnsOfGrid.all(modelId, splitId).map(decodeColumn);
    if (cols.length === 0) return [];
    const configKeys = idMap(names.configs);
    const runs = idMap(names.runSources);
    // Config-key order as SQLite sorts it (BINARY): the map was filled in that order.
    const rank = new Map([...configKeys.keys()].map((id, i) => [id, i] as const));
    cols.sort((a, b) => (rank.get(a.configId) as number) - (rank.get(b.configId) as number));
    const out: ResponseRecord[] = [];
    for (const [itemId, sampleId] of names.itemsOfSplit.raw(true).iterate(splitId) as IterableIterator<[number, string]>) {
      if (onlySample !== undefined && sampleId !== onlySample) continue;
      for (const c of cols) {
        const k = c.find(itemId);
        if (k < 0) continue;
        const correct = c.correct[k]! < 0 ? null : c.correct[k]!;
        const run = c.runId[k] === 0 ? null : c.runId[k]!;
        const fi = c.frames?.[k] ?? null;
        out.push({
          model,
          split,
          sampleId,
          config: configKeys.get(c.configId) as string,
          pred: c.pred.get(k),
          correct: correct === null ? null : correct === 1,
          score: floatAt(c.score, k),
          groundTruth: c.groundTruth.get(k),
          confidence: floatAt(c.confidence, k),
          margin: floatAt(c.margin, k),
          latencyMs: floatAt(c.latencyMs, k),
          frameIndices: fi === null ? null : Array.from(fi),
          sourceTag: c.sourceTag.get(k),
          protocolNote: c.protocolNote.get(k),
          source: run === null ? null : (runs.get(run) ?? null),
          line: c.line[k]! < 0 ? null : c.line[k]!,
        });
      }
    }
    return out;
  }

  /** The grids with the main protocol's configs (`main`), or with every config (`main` null). */
  function readGrids(main: string | null): GridInfo[] {
    // Counts per column are stored; distinct items need the columns' item-id BLOBs.
    const rows = db
      .prepare(
        `SELECT DISTINCT m.name AS model, s.name AS split, g.model_id, g.split_id
         FROM response_columns g JOIN models m ON m.id = g.model_id JOIN splits s ON s.id = g.split_id
         ORDER BY m.name, s.name`,
      )
      .all() as { model: string; split: string; model_id: number; split_id: number }[];
    const columns = db.prepare<[number, number], { config_id: number; n_cells: number; n_correct: number; n_score: number; item_ids: Buffer; protocol_note: Buffer }>(
      'SELECT config_id, n_cells, n_correct, n_score, item_ids, protocol_note FROM response_columns WHERE model_id = ? AND split_id = ?',
    );
    const out: GridInfo[] = [];
    for (const r of rows) {
      const all = new Map(q.gridConfigs.all(r.model_id, r.split_id).map((c) => [c.id, specFromRow(c)] as const));
      const kept = keptSpecs(all, main);
      if (kept.size === 0) continue;
      const seen = new Set<number>();
      let nCells = 0;
      let nCorrect = 0;
      let nScore = 0;
      const notes: Buffer[] = [];
      for (const c of columns.all(r.model_id, r.split_id)) {
        if (!kept.has(c.config_id)) continue;
        nCells += c.n_cells;
        nCorrect += c.n_correct;
        nScore += c.n_score;
        notes.push(c.protocol_note);
        for (const id of decodeInt32(c.item_ids)) seen.add(id);
      }
      const kind = nScore > 0 && nCorrect === 0 ? ('open' as const) : ('mcqa' as const);
      // The score sources the cells name (docs/metrics.md §1): only each column's distinct notes are read.
      const sources: string[] = [];
      for (const b of notes) for (const note of distinctStrings(b)) {
        const src = scoreSourceOf(note);
        if (src !== null) sources.push(src);
      }
      out.push({
        model: r.model,
        split: r.split,
        kind,
        configs: configOrder([...kept.values()]),
        nItems: seen.size,
        nCells,
        score: gridScore(kind, sources),
        protocols: protocolsOf([...all.values()].map((c) => c.key)),
      });
    }
    return out;
  }
  let gridsKept: { version: number; main: string | null; grids: GridInfo[] } | null = null;
  const usedConfigKeys = db.prepare<[], string>('SELECT DISTINCT c.key FROM response_columns g JOIN configs c ON c.id = g.config_id').pluck(true);

  const project: Project = {
    path: file,
    readOnly,
    migration,
    db,
    close() {
      if (db.open) {
        if (!readOnly && opts.checkpointOnClose) {
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
    },

    applyImport: (batch, opts) => project.applyImports([batch], opts),
    applyImports(batches, opts) {
      assertWritable();
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
        q.inputsBump.run();
        summary.warnings.push(...notes);
        return summary;
      })();
    },

    inputsVersion: () => q.inputs.get() ?? 0,
    mainProtocol() {
      const v = project.getSetting<unknown>(MAIN_PROTOCOL_SETTING);
      if (typeof v === 'string') return { name: v, source: 'setting' };
      return { name: defaultMainProtocol(usedConfigKeys.all()), source: 'default' };
    },
    listGrids(opts = {}) {
      // Asked on every project:info and view; the distinct items need every column's item-id
      // BLOB decoded, so the answer is kept until an import or a settings write (in any
      // process) bumps the inputs version. Copies go out: a caller sorting or editing its list
      // cannot change the kept one. Nothing is kept from inside a transaction: it may roll
      // back, and the next import would then reach the same version number with other grids.
      const main = opts.allProtocols ? null : (opts.protocol ?? project.mainProtocol().name);
      if (db.inTransaction) return readGrids(main);
      const version = project.inputsVersion();
      if (gridsKept?.version !== version || gridsKept.main !== main) gridsKept = { version, main, grids: readGrids(main) };
      return gridsKept.grids.map((g) => ({ ...g, configs: [...g.configs], protocols: [...g.protocols] }));
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
    listModels: () => (db.prepare('SELECT name FROM models ORDER BY name').pluck().all() as string[]),
    listSplits: () => (db.prepare('SELECT name FROM splits ORDER BY name').pluck().all() as string[]),
    listRuns() {
      return (db.prepare('SELECT * FROM runs ORDER BY id').all() as Record<string, string | number | null>[]).map((r) => ({
        id: Number(r.id),
        sourcePath: String(r.source_path),
        sha256: String(r.sha256),
        format: String(r.format),
        toolkit: r.toolkit === null ? null : String(r.toolkit),
        modelArgs: r.model_args === null ? null : String(r.model_args),
        importedAt: String(r.imported_at),
        nItems: Number(r.n_items),
        nResponses: Number(r.n_responses),
        nConfigs: Number(r.n_configs),
      }));
    },

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
    listItems(filter = {}) {
      const where: string[] = [];
      const args: (string | number)[] = [];
      if (filter.split !== undefined) (where.push('s.name = ?'), args.push(filter.split));
      if (filter.taskType !== undefined) (where.push('i.task_type = ?'), args.push(filter.taskType));
      if (filter.hasVideo !== undefined) where.push(filter.hasVideo ? 'i.video_file IS NOT NULL' : 'i.video_file IS NULL');
      if (filter.sampleIds !== undefined) {
        if (filter.sampleIds.length === 0) return [];
        where.push(`i.sample_id IN (SELECT value FROM json_each(?))`);
        args.push(JSON.stringify(filter.sampleIds));
      }
      const sql = `SELECT i.*, s.name AS split FROM items i JOIN splits s ON s.id = i.split_id ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY s.name, i.sample_id`;
      return (db.prepare(sql).all(...args) as ItemRow[]).map(itemFromRow);
    },
    responsesForItem(model, split, sampleId) {
      const ids = q.gridIds.get(model, split);
      if (!ids) return [];
      const rows = gridRecords(ids.model_id, ids.split_id, model, split, sampleId);
      const order = new Map(project.gridConfigs(model, split).map((c, i) => [c.key, i] as const));
      return rows.sort((a, b) => (order.get(a.config) ?? 1e9) - (order.get(b.config) ?? 1e9));
    },
    *iterateResponses(filter = {}) {
      // One grid decoded at a time: memory stays that of one grid, not of the project.
      for (const [modelId, splitId, model, split] of names.grids.raw(true).all() as [number, number, string, string][]) {
        if (filter.model !== undefined && model !== filter.model) continue;
        if (filter.split !== undefined && split !== filter.split) continue;
        yield* gridRecords(modelId, splitId, model, split);
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

interface ItemRow {
  split: string;
  sample_id: string;
  question: string | null;
  options: string | null;
  answer: string | null;
  references_json: string | null;
  task_type: string | null;
  duration_s: number | null;
  duration_bucket: string | null;
  domain: string | null;
  sub_category: string | null;
  video_id: string | null;
  video_file: string | null;
  kind: string | null;
  context_json: string | null;
}

function itemFromRow(r: ItemRow): ItemMeta {
  return {
    split: r.split,
    sampleId: r.sample_id,
    question: r.question,
    options: r.options === null ? null : (JSON.parse(r.options) as string[]),
    answer: r.answer,
    references: r.references_json === null ? null : (JSON.parse(r.references_json) as string[]),
    taskType: r.task_type,
    durationS: r.duration_s,
    durationBucket: r.duration_bucket,
    domain: r.domain,
    subCategory: r.sub_category,
    videoId: r.video_id,
    videoFile: r.video_file,
    kind: r.kind === 'mcqa' || r.kind === 'open' ? r.kind : null,
    context: r.context_json === null ? null : parseContext(r.context_json),
  };
}

function createSavedViews(db: Database.Database, assertWritable: () => void): SavedViews {
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
