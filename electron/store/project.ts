/**
 * A Flipbook project: one SQLite file (`*.flipbook`) opened by one process at a time.
 * See docs/architecture.md (Data). Everything the app, the CLI and the web mode
 * know about a project goes through this object.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { ConfigSpec, ImportBatch, ItemMeta, ResponseMatrix, ResponseRow, TaskKind, VideoCache } from '../../shared/domain/types';
import type { AnnotationStore } from './annotations';
import type { ScannedGrid } from './column-scan';
import type { OutcomeScan } from './outcome-scan';
import { namingStorage, ProjectForeignError, ProjectLockedError, ProjectNotWritableError, ProjectOpenError, ProjectVersionError } from './errors';
import { identifyProjectFile } from './identify';
import type { ImportOverrides, ImportSummary } from './import-apply';
import { acquireLock, lockHolder, type ProjectLock } from './lock';
import type { GridRef, LoadOptions } from './matrix-load';
import { checkVersion, latestVersion, migrate, type MigrationResult } from './migrate';
import { withSmallPageCache } from './page-cache';
import { removeStaleTemps } from './process-alive';
import { createProject } from './project-api';
import { sqliteBinding } from './sqlite-binding';

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
