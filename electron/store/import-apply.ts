/**
 * Applies importer batches to a project. The caller runs this inside ONE transaction: any
 * ImportError thrown here rolls back every batch of the call, so a rejected file changes nothing.
 *
 * Rules (issue 2 §3–§4):
 * - items are keyed by (split, sample_id); metadata may arrive before or after responses;
 * - a response without `correct` gets it from its item's answer once the answer is known,
 *   and a known `correct` must agree with the answer (else ImportError);
 * - the same (model, split, sample, config) from a DIFFERENT run with a different outcome is
 *   a conflict; the same file imported again (same sha256) is a no-op;
 * - a config key must agree with its frame count.
 */
import type Database from 'better-sqlite3';
import { ImportError } from '../importers/errors';
import type { ConfigSpec, ImportBatch, ItemMeta, ResponseRow } from '../../shared/domain/types';

export interface ImportOverrides {
  model?: string;
  split?: string;
  config?: string;
}

export interface ImportSummary {
  itemsAdded: number;
  itemsUpdated: number;
  responsesAdded: number;
  responsesUpdated: number;
  /** New (model, split, config) columns: a config added to a model's grid on a split. */
  configsAdded: number;
  /** Names touched by the import, sorted. */
  models: string[];
  splits: string[];
  configs: string[];
  warnings: string[];
}

export function emptySummary(): ImportSummary {
  return { itemsAdded: 0, itemsUpdated: 0, responsesAdded: 0, responsesUpdated: 0, configsAdded: 0, models: [], splits: [], configs: [], warnings: [] };
}

/** Frames named by a config key (`textonly` → 0, `16f…` → 16), or null when the key names none. */
export function framesFromKey(key: string): number | null {
  if (key === 'textonly') return 0;
  const m = /^(\d+)f(?:_|$)/.exec(key);
  return m ? Number(m[1]) : null;
}

interface StoredItem {
  id: number;
  answer: string | null;
}

interface StoredResponse {
  pred: string | null;
  correct: number | null;
  score: number | null;
  runId: number | null;
  line: number | null;
  /** Written by this apply call (a second row with the same key in the batch is a duplicate). */
  fresh: boolean;
  /** Bit k set = fill column k (see FILL_COLUMNS) is NULL in the stored row. */
  nullMask: number;
}

const ITEM_FIELDS = [
  ['question', 'question'],
  ['options', 'options'],
  ['answer', 'answer'],
  ['references', 'references_json'],
  ['taskType', 'task_type'],
  ['durationS', 'duration_s'],
  ['durationBucket', 'duration_bucket'],
  ['domain', 'domain'],
  ['subCategory', 'sub_category'],
  ['videoId', 'video_id'],
  ['videoFile', 'video_file'],
  ['kind', 'kind'],
] as const satisfies readonly (readonly [keyof ItemMeta, string])[];

function itemValue(meta: ItemMeta, field: (typeof ITEM_FIELDS)[number][0]): string | number | null {
  const v = meta[field];
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return JSON.stringify(v);
  return v;
}

function int32Blob(values: number[] | null): Buffer | null {
  if (!values) return null;
  const arr = Int32Array.from(values);
  return Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength);
}

/** Columns a later import may fill when the stored row lacks them, in responseFill's order. */
const FILL_COLUMNS = ['correct', 'ground_truth', 'confidence', 'margin', 'latency_ms', 'frame_indices', 'source_tag', 'protocol_note'] as const;
const NULL_MASK_SQL = FILL_COLUMNS.map((c, k) => `((${c} IS NULL) << ${k})`).join(' | ');

const sameNum = (a: number | null, b: number | null): boolean => a === b || (a !== null && b !== null && Math.abs(a - b) <= 1e-12);

export function createImportApplier(db: Database.Database) {
  const q = {
    runBySha: db.prepare<[string, string], { id: number }>('SELECT id FROM runs WHERE sha256 = ? AND format = ?'),
    runInsert: db.prepare(
      'INSERT INTO runs (source_path, sha256, format, toolkit, model_args, imported_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    runCounts: db.prepare('UPDATE runs SET n_items = ?, n_responses = ?, n_configs = ? WHERE id = ?'),
    runSource: db.prepare<[number], { source_path: string }>('SELECT source_path FROM runs WHERE id = ?'),
    model: db.prepare<[string], { id: number }>('SELECT id FROM models WHERE name = ?'),
    modelInsert: db.prepare('INSERT INTO models (name) VALUES (?)'),
    split: db.prepare<[string], { id: number }>('SELECT id FROM splits WHERE name = ?'),
    splitInsert: db.prepare('INSERT INTO splits (name) VALUES (?)'),
    config: db.prepare<[string], { id: number; frames: number; pixel_count: number | null }>(
      'SELECT id, frames, pixel_count FROM configs WHERE key = ?',
    ),
    configInsert: db.prepare(
      `INSERT INTO configs (key, frames, pixel_count, width, height, sampling_policy, sampling_seed, sampling_fps, pipeline, toolkit, model_args, notes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    configFill: db.prepare(
      `UPDATE configs SET pixel_count = COALESCE(pixel_count, ?), width = COALESCE(width, ?), height = COALESCE(height, ?),
         sampling_policy = COALESCE(sampling_policy, ?), sampling_seed = COALESCE(sampling_seed, ?), sampling_fps = COALESCE(sampling_fps, ?),
         pipeline = COALESCE(pipeline, ?), toolkit = COALESCE(toolkit, ?), model_args = COALESCE(model_args, ?), notes = COALESCE(notes, ?)
       WHERE id = ?`,
    ),
    gridInsert: db.prepare(
      `INSERT OR IGNORE INTO grid_configs (model_id, split_id, config_id, width, height, sampling_policy, sampling_seed, sampling_fps, pipeline, toolkit, model_args, notes, run_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    gridFill: db.prepare(
      `UPDATE grid_configs SET width = COALESCE(width, ?), height = COALESCE(height, ?),
         sampling_policy = COALESCE(sampling_policy, ?), sampling_seed = COALESCE(sampling_seed, ?), sampling_fps = COALESCE(sampling_fps, ?),
         pipeline = COALESCE(pipeline, ?), toolkit = COALESCE(toolkit, ?), model_args = COALESCE(model_args, ?), notes = COALESCE(notes, ?)
       WHERE model_id = ? AND split_id = ? AND config_id = ?`,
    ),
    itemsOfSplit: db.prepare<[number], { id: number; sample_id: string; answer: string | null }>(
      'SELECT id, sample_id, answer FROM items WHERE split_id = ?',
    ),
    itemFull: db.prepare<[number], Record<string, string | number | null>>('SELECT * FROM items WHERE id = ?'),
    itemInsertBare: db.prepare('INSERT INTO items (split_id, sample_id) VALUES (?, ?)'),
    itemSetAnswer: db.prepare('UPDATE items SET answer = ? WHERE id = ?'),
    responsesOfGrid: db.prepare<[number, number], [number, number, string | null, number | null, number | null, number | null, number | null, number]>(
      `SELECT item_id, config_id, pred, correct, score, run_id, line, ${NULL_MASK_SQL} FROM responses WHERE model_id = ? AND split_id = ?`,
    ),
    gridHasResponses: db.prepare<[number, number], { one: number }>('SELECT 1 AS one FROM responses WHERE model_id = ? AND split_id = ? LIMIT 1'),
    responseInsert: db.prepare(
      `INSERT INTO responses (model_id, split_id, item_id, config_id, pred, correct, score, ground_truth, confidence, margin, latency_ms,
         frame_indices, source_tag, protocol_note, run_id, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    responseOverwrite: db.prepare(
      `UPDATE responses SET pred = ?, correct = ?, score = ?, ground_truth = ?, confidence = ?, margin = ?, latency_ms = ?,
         frame_indices = ?, source_tag = ?, protocol_note = ?, run_id = ?, line = ?
       WHERE model_id = ? AND split_id = ? AND item_id = ? AND config_id = ?`,
    ),
    // Fill what the stored row lacks; `changes` tells whether anything was new.
    responseFill: db.prepare(
      `UPDATE responses SET correct = COALESCE(correct, ?), ground_truth = COALESCE(ground_truth, ?), confidence = COALESCE(confidence, ?),
         margin = COALESCE(margin, ?), latency_ms = COALESCE(latency_ms, ?), frame_indices = COALESCE(frame_indices, ?),
         source_tag = COALESCE(source_tag, ?), protocol_note = COALESCE(protocol_note, ?)
       WHERE model_id = ? AND split_id = ? AND item_id = ? AND config_id = ?
         AND (correct IS NULL AND ? IS NOT NULL OR ground_truth IS NULL AND ? IS NOT NULL OR confidence IS NULL AND ? IS NOT NULL
           OR margin IS NULL AND ? IS NOT NULL OR latency_ms IS NULL AND ? IS NOT NULL OR frame_indices IS NULL AND ? IS NOT NULL
           OR source_tag IS NULL AND ? IS NOT NULL OR protocol_note IS NULL AND ? IS NOT NULL)`,
    ),
    answerConflict: db.prepare<[number, string], { pred: string; correct: number; line: number | null; source: string | null; model: string; config: string }>(
      `SELECT r.pred, r.correct, r.line, runs.source_path AS source, m.name AS model, c.key AS config
       FROM responses r JOIN models m ON m.id = r.model_id JOIN configs c ON c.id = r.config_id LEFT JOIN runs ON runs.id = r.run_id
       WHERE r.item_id = ? AND r.correct IS NOT NULL AND r.score IS NULL AND r.pred IS NOT NULL AND (r.pred = ?) <> r.correct LIMIT 1`,
    ),
    fillCorrect: db.prepare(
      'UPDATE responses SET correct = CASE WHEN pred = ? THEN 1 ELSE 0 END WHERE item_id = ? AND correct IS NULL AND score IS NULL',
    ),
  };

  return function applyImports(batches: ImportBatch[], opts: ImportOverrides = {}): ImportSummary {
    const summary = emptySummary();
    const modelNames = new Set<string>();
    const splitNames = new Set<string>();
    const configNames = new Set<string>();
    const modelIds = new Map<string, number>();
    const splitIds = new Map<string, number>();
    const configIds = new Map<string, number>();
    const itemsBySplit = new Map<number, Map<string, StoredItem>>();
    const grids = new Map<string, Map<string, StoredResponse>>();
    const updatedItems = new Set<number>();
    const runSources = new Map<number, string>();

    const idOf = (cache: Map<string, number>, name: string, get: Database.Statement<[string], { id: number }>, insert: Database.Statement): number => {
      let id = cache.get(name);
      if (id === undefined) {
        id = get.get(name)?.id ?? Number(insert.run(name).lastInsertRowid);
        cache.set(name, id);
      }
      return id;
    };
    const modelId = (name: string): number => (modelNames.add(name), idOf(modelIds, name, q.model, q.modelInsert));
    const splitId = (name: string): number => (splitNames.add(name), idOf(splitIds, name, q.split, q.splitInsert));

    const itemsOf = (sid: number): Map<string, StoredItem> => {
      let m = itemsBySplit.get(sid);
      if (!m) {
        m = new Map();
        for (const r of q.itemsOfSplit.iterate(sid)) m.set(r.sample_id, { id: r.id, answer: r.answer });
        itemsBySplit.set(sid, m);
      }
      return m;
    };

    const sourceOf = (runId: number | null): string => {
      if (runId === null) return 'an earlier import';
      let s = runSources.get(runId);
      if (s === undefined) {
        s = q.runSource.get(runId)?.source_path ?? 'an earlier import';
        runSources.set(runId, s);
      }
      return s;
    };

    /** The item's answer became known: check stored outcomes against it, then fill missing ones. */
    const answerArrived = (item: StoredItem, answer: string, file: string, line: number, field: string, split: string, sampleId: string): void => {
      const bad = q.answerConflict.get(item.id, answer);
      if (bad) {
        throw new ImportError(
          file,
          line,
          field,
          `answer "${answer}" for (${split}, ${sampleId}) contradicts ${bad.source ?? 'an earlier import'}${bad.line ? `:${bad.line}` : ''} ` +
            `(${bad.model}, ${bad.config}: predicted "${bad.pred}", correct = ${bad.correct})`,
        );
      }
      summary.responsesUpdated += q.fillCorrect.run(answer, item.id).changes;
      item.answer = answer;
    };

    const upsertConfig = (spec: ConfigSpec, file: string, line: number): number => {
      const named = framesFromKey(spec.key);
      if (named !== null && named !== spec.frames) {
        throw new ImportError(file, line, 'config', `config "${spec.key}" names ${named} frames but its frame count is ${spec.frames}`);
      }
      const stored = q.config.get(spec.key);
      const s = spec.sampling;
      const prov = [spec.width, spec.height, s.policy, s.seed, s.fps, spec.pipeline, spec.toolkit, spec.modelArgs, spec.notes] as const;
      if (!stored) {
        const id = Number(q.configInsert.run(spec.key, spec.frames, spec.pixelCount, ...prov).lastInsertRowid);
        configIds.set(spec.key, id);
        return id;
      }
      if (stored.frames !== spec.frames) {
        throw new ImportError(file, line, 'config', `config "${spec.key}" has ${spec.frames} frames here but ${stored.frames} in the project`);
      }
      if (stored.pixel_count !== null && spec.pixelCount !== null && stored.pixel_count !== spec.pixelCount) {
        throw new ImportError(
          file,
          line,
          'pixel_count',
          `config "${spec.key}" has ${spec.pixelCount} pixels per frame here but ${stored.pixel_count} in the project`,
        );
      }
      q.configFill.run(spec.pixelCount, ...prov, stored.id);
      configIds.set(spec.key, stored.id);
      return stored.id;
    };

    for (const batch of batches) {
      const file = batch.run.sourcePath;
      summary.warnings.push(...batch.warnings);

      // Overrides from the command line / dialog.
      let responses: ResponseRow[] = batch.responses;
      let specs: ConfigSpec[] = batch.configs;
      if (opts.config) {
        const keys = new Set(responses.map((r) => r.config));
        if (keys.size > 1) {
          throw new ImportError(file, 0, 'config', `--config names one config but this file holds ${keys.size} (${[...keys].sort().join(', ')})`);
        }
        const [from] = [...keys];
        const spec = specs.find((c) => c.key === from) ?? specs[0];
        specs = spec ? [{ ...spec, key: opts.config }] : [];
        responses = responses.map((r) => ({ ...r, config: opts.config! }));
      }
      if (opts.model || opts.split) {
        responses = responses.map((r) => ({ ...r, model: opts.model ?? r.model, split: opts.split ?? r.split }));
      }
      const items = opts.split ? batch.items.map((it) => ({ ...it, split: opts.split! })) : batch.items;

      // Run provenance: identical bytes in the same format are the same run.
      const runId =
        q.runBySha.get(batch.run.sha256, batch.run.format)?.id ??
        Number(
          q.runInsert.run(file, batch.run.sha256, batch.run.format, batch.run.toolkit, batch.run.modelArgs, new Date().toISOString()).lastInsertRowid,
        );

      // Configs: declared specs first, then keys only named by responses.
      const specByKey = new Map<string, ConfigSpec>();
      for (const spec of specs) {
        specByKey.set(spec.key, spec);
        upsertConfig(spec, file, 0);
      }
      for (const r of responses) {
        if (specByKey.has(r.config)) continue;
        const frames = framesFromKey(r.config);
        if (frames === null) {
          throw new ImportError(file, r.line, 'config', `config "${r.config}" does not name its frame count and the file gives none (use --config)`);
        }
        const spec: ConfigSpec = {
          key: r.config,
          frames,
          pixelCount: frames === 0 ? 0 : null,
          width: null,
          height: null,
          sampling: { policy: null, seed: null, fps: null },
          pipeline: null,
          toolkit: batch.run.toolkit,
          modelArgs: batch.run.modelArgs,
          notes: null,
        };
        specByKey.set(r.config, spec);
        upsertConfig(spec, file, r.line);
      }

      // Items (metadata) before responses so that one batch's answers apply to its own rows.
      for (const meta of items) {
        const sid = splitId(meta.split);
        const known = itemsOf(sid);
        const line = meta.line ?? 0;
        const stored = known.get(meta.sampleId);
        if (!stored) {
          const cols = ITEM_FIELDS.map(([, col]) => col);
          const id = Number(
            db
              .prepare(`INSERT INTO items (split_id, sample_id, ${cols.join(', ')}) VALUES (?, ?, ${cols.map(() => '?').join(', ')})`)
              .run(sid, meta.sampleId, ...ITEM_FIELDS.map(([f]) => itemValue(meta, f))).lastInsertRowid,
          );
          known.set(meta.sampleId, { id, answer: meta.answer ?? null });
          summary.itemsAdded++;
          continue;
        }
        const row = q.itemFull.get(stored.id)!;
        const sets: string[] = [];
        const vals: (string | number | null)[] = [];
        for (const [f, col] of ITEM_FIELDS) {
          const v = itemValue(meta, f);
          if (v === null || row[col] === v) continue;
          if (f === 'answer' && row[col] !== null) {
            throw new ImportError(file, line, 'answer', `answer "${v}" for (${meta.split}, ${meta.sampleId}) contradicts the project's "${row[col]}"`);
          }
          sets.push(`${col} = ?`);
          vals.push(v);
        }
        if (sets.length) {
          db.prepare(`UPDATE items SET ${sets.join(', ')} WHERE id = ?`).run(...vals, stored.id);
          if (!updatedItems.has(stored.id)) summary.itemsUpdated++;
          updatedItems.add(stored.id);
        }
        if (meta.answer != null && stored.answer === null) answerArrived(stored, meta.answer, file, line, 'answer', meta.split, meta.sampleId);
      }

      // Responses.
      const gridConfigsSeen = new Set<string>();
      for (const r of responses) {
        const mid = modelId(r.model);
        const sid = splitId(r.split);
        const cid = configIds.get(r.config)!;
        configNames.add(r.config);
        const gridKey = `${mid}:${sid}`;
        let grid = grids.get(gridKey);
        if (!grid) {
          grid = new Map();
          if (q.gridHasResponses.get(mid, sid)) {
            for (const [itemId, configId, pred, correct, score, rid, line, nullMask] of q.responsesOfGrid.raw().iterate(mid, sid) as IterableIterator<
              [number, number, string | null, number | null, number | null, number | null, number | null, number]
            >) {
              grid.set(`${itemId}:${configId}`, { pred, correct, score, runId: rid, line, fresh: false, nullMask });
            }
          }
          grids.set(gridKey, grid);
        }
        const spec = specByKey.get(r.config)!;
        const gridSpec = [spec.width, spec.height, spec.sampling.policy, spec.sampling.seed, spec.sampling.fps, spec.pipeline, spec.toolkit, spec.modelArgs, spec.notes] as const;
        const gridConfigKey = `${gridKey}:${cid}`;
        if (!gridConfigsSeen.has(gridConfigKey)) {
          gridConfigsSeen.add(gridConfigKey);
          if (q.gridInsert.run(mid, sid, cid, ...gridSpec, runId).changes) summary.configsAdded++;
          else q.gridFill.run(...gridSpec, mid, sid, cid);
        }

        const known = itemsOf(sid);
        let item = known.get(r.sampleId);
        if (!item) {
          item = { id: Number(q.itemInsertBare.run(sid, r.sampleId).lastInsertRowid), answer: null };
          known.set(r.sampleId, item);
          summary.itemsAdded++;
        }
        if (r.groundTruth !== null && r.score === null) {
          if (item.answer === null) {
            q.itemSetAnswer.run(r.groundTruth, item.id);
            if (!updatedItems.has(item.id)) summary.itemsUpdated++;
            updatedItems.add(item.id);
            answerArrived(item, r.groundTruth, file, r.line, 'ground_truth', r.split, r.sampleId);
          } else if (item.answer !== r.groundTruth) {
            throw new ImportError(file, r.line, 'ground_truth', `ground truth "${r.groundTruth}" for (${r.split}, ${r.sampleId}) contradicts the project's "${item.answer}"`);
          }
        }
        let correct: number | null = r.correct === null ? null : r.correct ? 1 : 0;
        if (r.score === null && item.answer !== null) {
          const implied = r.pred !== null && r.pred === item.answer ? 1 : 0;
          if (correct === null) correct = implied;
          else if (r.pred !== null && correct !== implied) {
            throw new ImportError(file, r.line, 'correct', `correct = ${correct} contradicts predicted "${r.pred}" and answer "${item.answer}"`);
          }
        }

        const key = `${item.id}:${cid}`;
        const stored = grid.get(key);
        const values = [
          r.pred, correct, r.score, r.groundTruth, r.confidence, r.margin, r.latencyMs, int32Blob(r.frameIndices), r.sourceTag, r.protocolNote,
        ] as const;
        if (!stored) {
          q.responseInsert.run(mid, sid, item.id, cid, ...values, runId, r.line);
          grid.set(key, { pred: r.pred, correct, score: r.score, runId, line: r.line, fresh: true, nullMask: 0 });
          summary.responsesAdded++;
          continue;
        }
        const differing =
          stored.pred !== r.pred ? 'pred' : stored.correct !== null && correct !== null && stored.correct !== correct ? 'correct' : !sameNum(stored.score, r.score) ? 'score' : null;
        if (differing) {
          if (stored.fresh || stored.runId !== runId) {
            const where = stored.fresh ? `line ${stored.line} of the same import` : `${sourceOf(stored.runId)}${stored.line ? `:${stored.line}` : ''}`;
            throw new ImportError(
              file,
              r.line,
              differing,
              `(${r.model}, ${r.split}, ${r.sampleId}, ${r.config}) is already recorded with a different ${differing} (${where})`,
            );
          }
          // Same bytes as an earlier run but read differently (e.g. a newer importer): the new reading wins.
          q.responseOverwrite.run(...values, runId, r.line, mid, sid, item.id, cid);
          grid.set(key, { pred: r.pred, correct, score: r.score, runId, line: r.line, fresh: true, nullMask: 0 });
          summary.responsesUpdated++;
          continue;
        }
        if (stored.fresh) continue; // an exact duplicate line within this import
        const v = values;
        // Only touch the row when it lacks something this row has (keeps re-imports cheap).
        const offered = [v[1], v[3], v[4], v[5], v[6], v[7], v[8], v[9]].reduce<number>((m, x, k) => (x === null ? m : m | (1 << k)), 0);
        if (offered & stored.nullMask && q.responseFill.run(v[1], v[3], v[4], v[5], v[6], v[7], v[8], v[9], mid, sid, item.id, cid, v[1], v[3], v[4], v[5], v[6], v[7], v[8], v[9]).changes) {
          summary.responsesUpdated++;
        }
        stored.fresh = true;
        stored.line = r.line;
      }
      q.runCounts.run(items.length, responses.length, specByKey.size, runId);
    }
    summary.models = [...modelNames].sort();
    summary.splits = [...splitNames].sort();
    summary.configs = [...configNames].sort();
    return summary;
  };
}
