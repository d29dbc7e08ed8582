/**
 * The backend behind both transports: one open project, its derived audit index, the frame
 * service and the media registry, and one handler per contract operation. Electron's IPC
 * bridge and the web mode's HTTP server both call createBackend() and differ only in the
 * HostHooks they pass (how events reach the renderer, how media URLs look, dialogs).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EventName, EventPayload, ItemDetail, QueueRow, Res, Strip, Tile } from '../../shared/api/contract';
import { emptyAnnotationState, type AnnotationEdit, type AnnotationState } from '../../shared/domain/annotations';
import { evidenceCoverage } from '../../shared/evidence/coverage';
import type { ConfigSpec } from '../../shared/domain/types';
import { openProject as openStore, type Project } from '../store/project';
import { ProjectLockedError } from '../store/errors';
import { detectFormat, readImport } from '../importers/index';
import { applyImportsWithAnnotations, bundleForImport } from '../team/import-with-annotations';
import { exportRelease } from '../release/export';
import { createFrameService, type FrameService } from '../frames/frame-service';
import { frameCacheDirForProject } from '../frames/frame-cache';
import type { ConfigFrames } from '../frames/frame-selection';
import { stripsForItem } from '../frames/item-strips';
import type { VideoMeta } from '../media/video-meta';
import { ensurePlayable } from '../media/proxy';
import { defaultPolicyForModel } from '../../shared/samplers/index';
import { ServiceError, type Handlers } from './dispatch';
import { createAuditIndex, type AuditIndex } from './audit-index';
import { createMediaRegistry, mimeOf, type MediaRegistry } from './media-registry';
import { toContractCodebook } from '../../shared/api/codebook';
import { createProjectMetadataCache } from '../media/project-metadata-cache';
import { mediaRootOf, selectItemFrames, videoPathOf } from './item-frames';
import { overviewHandlers } from './overview-handlers';
import { createTeamHandlers } from './team-handlers';

export type PickKind = 'open-project' | 'new-project' | 'import' | 'export-dir' | 'media-root';

export interface HostHooks {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** How the renderer addresses a media id (`/media/<id>` in the web mode, `media://m/<id>` in Electron). */
  mediaUrl(id: string): string;
  pickPaths?(kind: PickKind): Promise<string[]>;
  recent?: { list(): string[]; add(file: string): void };
  annotator?: { get(): string | null; set(name: string): string };
  /** Open a project that another process holds read-only instead of refusing it. */
  readOnlyWhenLocked?: boolean;
}

export interface Backend {
  handlers: Handlers;
  media: MediaRegistry;
  open(file: string, opts?: { create?: boolean }): Res<'project:open'>;
  project(): Project | null;
  close(): void;
}

interface Session {
  project: Project;
  readOnlyReason: string | null;
  audit: AuditIndex;
  frames: FrameService;
  /** Per (model, split, sample): the frames each config saw, for coverage and strips. */
  selections: Map<string, { meta: VideoMeta; configs: ConfigFrames[] }>;
  jobs: Map<string, AbortController>;
  videoCount: number | null;
  /** Frame cache folder of the project; also holds H.264 proxies of unplayable videos. */
  cacheDir: string;
}

const itemKey = (model: string, split: string, sampleId: string) => `${model}\u0000${split}\u0000${sampleId}`;

/**
 * The strip's legend: the sampler policy always, even when the response recorded its
 * frame_indices (then the policy is the one the run would have used, and the legend says the
 * indices are the recorded ones). Text-only configs have no sampler (null).
 */
function samplerName(c: ConfigFrames, spec: ConfigSpec | undefined, model: string): string | null {
  if (spec && spec.frames === 0 && c.frames.length === 0) return null;
  if (c.source === 'recorded') {
    const p = spec?.sampling.policy && spec.sampling.policy !== 'explicit' ? spec.sampling.policy : defaultPolicyForModel(model, spec?.toolkit ?? null);
    return `${p} · recorded indices`;
  }
  return `${c.policy}${c.source === 'model-default' ? ' (model default)' : c.source === 'override' ? ' (override)' : ''}`;
}

/** Writes refused on a read-only project with the reason, before they reach the store. */
function assertWritable(s: { project: Project; readOnlyReason: string | null }): void {
  if (s.project.readOnly) throw new ServiceError('read-only', `the project is open read-only: ${s.readOnlyReason ?? 'opened read-only'}`);
}

export function createBackend(hooks: HostHooks): Backend {
  const media = createMediaRegistry();
  let session: Session | null = null;

  const need = (): Session => {
    if (session === null) throw new ServiceError('no-project', 'no project is open');
    return session;
  };

  const closeSession = () => {
    if (!session) return;
    for (const c of session.jobs.values()) c.abort();
    session.frames.close();
    session.project.close();
    session = null;
    media.clear();
  };


  const countVideos = (s: Session): number => {
    if (s.videoCount !== null) return s.videoCount;
    const root = mediaRootOf(s.project);
    let n = 0;
    if (root !== null) for (const it of s.project.listItems()) if (it.videoFile && fs.existsSync(path.resolve(root, it.videoFile))) n++;
    s.videoCount = n;
    return n;
  };

  const info = (): Res<'project:info'> => {
    if (!session) return null;
    const p = session.project;
    const grids = p.listGrids();
    const settingMg = p.getSetting<unknown>('matchedGrid');
    void settingMg;
    return {
      path: p.path,
      name: path.basename(p.path),
      readOnly: p.readOnly,
      readOnlyReason: session.readOnlyReason,
      models: p.listModels(),
      splits: p.listSplits(),
      grids: grids.map((g) => ({
        model: g.model,
        split: g.split,
        kind: g.kind,
        configs: g.configs.map((c) => ({ key: c.key, frames: c.frames, pixelCount: c.pixelCount, sampler: c.sampling.policy })),
        nItems: g.nItems,
      })),
      nItems: p.listItems().length,
      mediaRoot: mediaRootOf(p),
      itemsWithVideo: countVideos(session),
      codebookVersion: p.annotations.getCodebook().version,
    };
  };

  const open = (file: string, opts: { create?: boolean } = {}): Res<'project:open'> => {
    closeSession();
    let project: Project;
    let readOnlyReason: string | null = null;
    try {
      project = openStore(file, { create: opts.create ?? false });
    } catch (e) {
      if (e instanceof ProjectLockedError && hooks.readOnlyWhenLocked) {
        project = openStore(file, { readOnly: true });
        readOnlyReason = e.message;
      } else if (e instanceof ProjectLockedError) throw new ServiceError('locked', e.message);
      else throw e;
    }
    session = {
      project,
      readOnlyReason,
      audit: createAuditIndex(project),
      frames: createFrameService({ cacheDir: frameCacheDirForProject(project.path), metadataCache: createProjectMetadataCache(project) }),
      selections: new Map(),
      jobs: new Map(),
      videoCount: null,
      cacheDir: frameCacheDirForProject(project.path),
    };
    hooks.recent?.add(project.path);
    return info() as NonNullable<Res<'project:info'>>;
  };

  /** Frames per config for an item (probe cached by the frame service); null without video. */
  const selection = async (s: Session, model: string, split: string, sampleId: string, configs: ConfigSpec[]) => {
    const k = itemKey(model, split, sampleId);
    const hit = s.selections.get(k);
    if (hit) return hit;
    const sel = await selectItemFrames(s.project, (file) => s.frames.probe(file), { model, split, sampleId }, configs);
    if (sel === null) return null;
    s.selections.set(k, sel);
    return sel;
  };

  const uniqueFrames = (c: ConfigFrames): { index: number; timeS: number }[] => {
    const seen = new Map<number, number>();
    c.frames.forEach((f, i) => {
      if (!seen.has(f)) seen.set(f, c.timestampsS[i] ?? 0);
    });
    return [...seen].map(([index, timeS]) => ({ index, timeS }));
  };

  const annotationOf = (s: Session, model: string, split: string, sampleId: string, annotator: string): AnnotationState =>
    s.project.annotations.state(model, split, sampleId).find((a) => a.annotator === annotator) ??
    emptyAnnotationState({ model, split, sampleId, annotator }, new Date().toISOString());

  /** Evidence spans carry the configs whose frames fall inside them (computed here, never trusted from the renderer). */
  const withCoverage = async (s: Session, edit: AnnotationEdit, annotator: string): Promise<AnnotationEdit> => {
    if (edit.op !== 'addSpan' && edit.op !== 'updateSpan') return edit;
    const g = s.audit.grid(edit.model, edit.split);
    const sel = await selection(s, edit.model, edit.split, edit.sampleId, g.configs).catch(() => null);
    const table = (sel?.configs ?? []).filter((c) => c.frames.length > 0).map((c) => ({ config: c.configKey, timestamps: c.timestampsS }));
    if (edit.op === 'addSpan') {
      const cov = evidenceCoverage([edit.span], table)[0]?.coveredBy ?? [];
      return { ...edit, span: { ...edit.span, coveredBy: cov } };
    }
    const cur = annotationOf(s, edit.model, edit.split, edit.sampleId, annotator).spans.find((sp) => sp.id === edit.spanId);
    if (!cur) throw new ServiceError('not-found', `no evidence span ${edit.spanId}`);
    const startS = edit.patch.startS ?? cur.startS;
    const endS = edit.patch.endS ?? cur.endS;
    if (endS < startS) throw new ServiceError('bad-request', `span end ${endS} is before its start ${startS}`);
    const cov = evidenceCoverage([{ startS, endS }], table)[0]?.coveredBy ?? [];
    return { ...edit, patch: { ...edit.patch, coveredBy: cov } };
  };

  const queueRows = (s: Session, annotator: string | undefined): QueueRow[] => {
    const p = s.project;
    const root = mediaRootOf(p);
    const states = p.annotations.listStates();
    const byItem = new Map<string, AnnotationState[]>();
    for (const st of states) {
      const k = itemKey(st.model, st.split, st.sampleId);
      const list = byItem.get(k);
      if (list) list.push(st);
      else byItem.set(k, [st]);
    }
    const metaCache = new Map<string, { taskType: string | null; question: string | null; hasVideo: boolean }>();
    const metaOf = (split: string, id: string) => {
      const k = `${split}\u0000${id}`;
      let m = metaCache.get(k);
      if (!m) {
        const it = p.getItem(split, id);
        m = {
          taskType: it?.taskType ?? null,
          question: it?.question ?? null,
          hasVideo: !!(root && it?.videoFile && fs.existsSync(path.resolve(root, it.videoFile))),
        };
        metaCache.set(k, m);
      }
      return m;
    };
    const rows: QueueRow[] = [];
    for (const g of s.audit.all()) {
      for (const [sampleId, a] of g.items) {
        const m = metaOf(g.split, sampleId);
        const sts = byItem.get(itemKey(g.model, g.split, sampleId)) ?? [];
        const mine = annotator ? sts.find((x) => x.annotator === annotator) : [...sts].sort((x, y) => (x.updatedAt < y.updatedAt ? 1 : -1))[0];
        rows.push({
          model: g.model,
          split: g.split,
          sampleId,
          taskType: m.taskType,
          trajectoryClass: a.trajectoryClass,
          pattern: a.pattern,
          flags: { visuallyConfused: a.visuallyConfused, textOverwritten: a.textOverwritten, terminalRegression: a.terminalRegression },
          harmed: a.harmed,
          rescued: a.rescued,
          status: mine?.status ?? 'todo',
          annotators: sts.map((x) => x.annotator).sort(),
          hasVideo: m.hasVideo,
          searchText: `${sampleId} ${g.model} ${m.taskType ?? ''} ${m.question ?? ''}`.toLowerCase(),
        });
      }
    }
    return rows;
  };

  const itemDetail = async (s: Session, model: string, split: string, sampleId: string, jobId?: string): Promise<ItemDetail> => {
    const p = s.project;
    const meta = p.getItem(split, sampleId);
    const g = s.audit.grid(model, split);
    const a = g.items.get(sampleId);
    if (!meta && !a) throw new ServiceError('not-found', `no item ${split}/${sampleId} for ${model}`);
    const responses = new Map(p.responsesForItem(model, split, sampleId).map((r) => [r.config, r]));
    let video: ItemDetail['video'] = null;
    let videoError: string | null = null;
    let sel: Awaited<ReturnType<typeof selection>> = null;
    try {
      sel = await selection(s, model, split, sampleId, g.configs);
      if (sel === null) videoError = videoPathOf(p, split, sampleId).error;
    } catch (e) {
      videoError = e instanceof Error ? e.message : String(e);
    }
    let playPath: string | null = sel?.meta.path ?? null;
    if (sel && !sel.meta.playable) {
      // Chromium cannot decode this codec (HEVC, MPEG-4 part 2, …): play an H.264 proxy,
      // transcoded once into the frame cache (electron/media/proxy.ts). Strips keep reading the original.
      const m = sel.meta;
      const progress = (done: number) => {
        if (jobId) hooks.emit('job:progress', { jobId, kind: 'proxy', done, total: 1, message: `making a playable H.264 copy of the ${m.codec} video` });
      };
      try {
        progress(0);
        playPath = await ensurePlayable(m, { cacheDir: s.cacheDir, onProgress: progress });
      } catch (e) {
        playPath = null;
        videoError = `the ${m.codec} stream cannot be played in the app and its H.264 proxy failed: ${e instanceof Error ? e.message : String(e)}; strips still show its frames`;
      }
    }
    if (sel && playPath !== null) {
      const m = sel.meta;
      const id = media.register(playPath);
      video = {
        url: hooks.mediaUrl(id),
        mime: mimeOf(playPath),
        fps: m.avgFrameRate > 0 ? m.avgFrameRate : m.realFrameRate > 0 ? m.realFrameRate : 30,
        frameCount: m.frameCount,
        durationS: m.durationS,
        width: m.width,
        height: m.height,
        startS: m.startTimeS,
      };
    }
    const harmed = a?.harmed ?? [];
    const terminalTransition = a?.terminalRegression ? (harmed.find((t) => t.endsWith(`>${a.terminalConfig}`)) ?? null) : null;
    return {
      model,
      split,
      sampleId,
      kind: g.kind,
      question: meta?.question ?? null,
      options: meta?.options ?? [],
      groundTruth: meta?.answer ?? [...responses.values()].find((r) => r.groundTruth)?.groundTruth ?? null,
      taskType: meta?.taskType ?? null,
      durationS: meta?.durationS ?? sel?.meta.durationS ?? null,
      configs: g.configs.map((c) => {
        const r = responses.get(c.key);
        const f = sel?.configs.find((x) => x.configKey === c.key);
        return {
          key: c.key,
          frames: c.frames,
          pixelCount: c.pixelCount,
          sampler: f ? samplerName(f, c, model) : c.frames === 0 ? null : c.sampling.policy,
          pred: r?.pred ?? null,
          correct: r?.correct ?? null,
          score: r?.score ?? null,
          confidence: r?.confidence ?? null,
          margin: r?.margin ?? null,
        };
      }),
      pattern: a?.pattern ?? '',
      trajectoryClass: a?.trajectoryClass ?? null,
      flags: { visuallyConfused: a?.visuallyConfused ?? false, textOverwritten: a?.textOverwritten ?? false, terminalRegression: a?.terminalRegression ?? false },
      bestConfig: a?.bestConfig ?? null,
      terminalConfig: a?.terminalConfig ?? null,
      harmed,
      rescued: a?.rescued ?? [],
      defaultTransition: terminalTransition ?? harmed[0] ?? null,
      video,
      videoError,
      frames: (sel?.configs ?? []).map((c) => {
        const u = uniqueFrames(c);
        return { config: c.configKey, sampler: samplerName(c, g.configs.find((x) => x.key === c.configKey), model), indices: u.map((x) => x.index), timesS: u.map((x) => x.timeS) };
      }),
    };
  };

  const handlers: Handlers = {
    ...overviewHandlers(() => need().project),
    ...createTeamHandlers({ project: () => need().project, emit: hooks.emit.bind(hooks) }),
    'project:open': (req) => open(req.path, { create: req.create ?? false }),
    'project:info': () => info(),
    'grids:list': () => info()?.grids ?? [],
    'queue:list': (req) => ({ rows: queueRows(need(), req.annotator) }),
    'item:get': (req) => itemDetail(need(), req.model, req.split, req.sampleId, req.jobId),
    'frames:strips': async (req) => {
      const s = need();
      const g = s.audit.grid(req.model, req.split);
      const sel = await selection(s, req.model, req.split, req.sampleId, g.configs);
      if (sel === null) throw new ServiceError('not-found', videoPathOf(s.project, req.split, req.sampleId).error ?? 'no video');
      const controller = new AbortController();
      s.jobs.get(req.jobId)?.abort();
      s.jobs.set(req.jobId, controller);
      const strips: Strip[] = sel.configs.map((c) => {
        const u = uniqueFrames(c);
        return {
          config: c.configKey,
          sampler: samplerName(c, g.configs.find((x) => x.key === c.configKey), req.model),
          indices: u.map((x) => x.index),
          timesS: u.map((x) => x.timeS),
          tiles: u.map((x) => ({ config: c.configKey, index: x.index, timeS: x.timeS, url: null, approximate: true })),
        };
      });
      const tilesByIndex = new Map<number, Tile[]>();
      for (const st of strips) for (const t of st.tiles) tilesByIndex.set(t.index, [...(tilesByIndex.get(t.index) ?? []), t]);
      const total = tilesByIndex.size;
      let exact = 0;
      const item = { model: req.model, split: req.split, sampleId: req.sampleId };
      const file = sel.meta.path;
      const strip = await stripsForItem(
        s.frames,
        { videoPath: file, model: req.model, configs: g.configs.map((c) => ({ config: c, recorded: s.project.responsesForItem(req.model, req.split, req.sampleId).find((r) => r.config === c.key)?.frameIndices ?? null })), videoId: s.project.getItem(req.split, req.sampleId)?.videoId ?? null },
        {
          signal: controller.signal,
          priority: req.priority ?? 0,
          onTile: (ev) => {
            const list = tilesByIndex.get(ev.index);
            if (!list) return;
            // Never downgrade: an exact tile stays exact even if a late keyframe thumbnail arrives.
            if (ev.kind === 'approximate' && list.every((t) => !t.approximate)) return;
            const url = hooks.mediaUrl(media.register(ev.file));
            for (const t of list) {
              t.url = url;
              t.approximate = ev.kind === 'approximate';
              hooks.emit('frames:tile', { ...item, jobId: req.jobId, tile: { ...t } });
            }
            if (ev.kind === 'exact') {
              exact++;
              hooks.emit('job:progress', { jobId: req.jobId, kind: 'frames', done: exact, total, message: null });
            }
          },
        },
      );
      // then(done, done), not finally(): finally() re-rejects with a cancelled extraction's error,
      // an unhandled rejection that would end the server process.
      const done = () => {
        if (s.jobs.get(req.jobId) === controller) s.jobs.delete(req.jobId);
      };
      void strip.frames.then(done, done);
      return { strips };
    },
    'frames:cancel': (req) => {
      const s = session;
      const c = s?.jobs.get(req.jobId);
      if (!c || !s) return { cancelled: false };
      c.abort();
      s.jobs.delete(req.jobId);
      return { cancelled: true };
    },
    'frames:full': async (req) => {
      const s = need();
      const { file, error } = videoPathOf(s.project, req.split, req.sampleId);
      if (file === null) throw new ServiceError('not-found', error ?? 'no video');
      const r = await s.frames.requestFrames({ video: file, indices: [req.index], spec: { width: null, format: 'jpeg' }, approximate: false, priority: 0 });
      const out = r.files.get(req.index);
      if (!out) throw new ServiceError('internal', r.failures[0]?.message ?? `frame ${req.index} could not be extracted`);
      return { url: hooks.mediaUrl(media.register(out)) };
    },
    'annotation:state': (req) => annotationOf(need(), req.model, req.split, req.sampleId, req.annotator),
    'annotation:apply': async (req) => {
      const s = need();
      assertWritable(s);
      const edit = await withCoverage(s, req.edit, req.annotator);
      const state = s.project.annotations.apply(edit, req.annotator);
      hooks.emit('data:changed', { scope: 'annotations', item: { model: state.model, split: state.split, sampleId: state.sampleId } });
      return state;
    },
    'annotation:undo': (req) => {
      const s = need();
      assertWritable(s);
      const r = s.project.annotations.undo(req.annotator);
      if (!r) return null;
      const t = r.target;
      const item = { model: t.model, split: t.split, sampleId: t.sampleId };
      hooks.emit('data:changed', { scope: 'annotations', item });
      return { item, state: r.state ?? emptyAnnotationState({ ...item, annotator: req.annotator }, new Date().toISOString()) };
    },
    'annotation:redo': (req) => {
      const s = need();
      assertWritable(s);
      const r = s.project.annotations.redo(req.annotator);
      if (!r) return null;
      const t = r.target;
      const item = { model: t.model, split: t.split, sampleId: t.sampleId };
      hooks.emit('data:changed', { scope: 'annotations', item });
      return { item, state: r.state ?? emptyAnnotationState({ ...item, annotator: req.annotator }, new Date().toISOString()) };
    },
    'codebook:get': () => toContractCodebook(need().project.annotations.getCodebook()),
    'settings:get': (req) => {
      const v = need().project.getSetting<unknown>(req.key);
      if (v === undefined || v === null) return null;
      return Array.isArray(v) ? v.join(',') : String(v);
    },
    'settings:set': (req) => {
      const s = need();
      assertWritable(s);
      if (req.value === null) s.project.deleteSetting(req.key);
      else if (req.key === 'matchedGrid') s.project.setSetting(req.key, req.value.split(',').map((x) => x.trim()).filter((x) => x !== ''));
      else s.project.setSetting(req.key, path.resolve(req.value));
      s.videoCount = null;
      s.selections.clear();
      s.audit.invalidate();
      hooks.emit('data:changed', { scope: 'settings', item: null });
      return info() as NonNullable<Res<'project:info'>>;
    },
    'import:run': async (req) => {
      const s = need();
      assertWritable(s);
      const files: Res<'import:run'>['files'] = [];
      let done = 0;
      const overrides = { ...(req.model ? { model: req.model } : {}), ...(req.split ? { split: req.split } : {}), ...(req.config ? { config: req.config } : {}) };
      for (const file of req.paths) {
        hooks.emit('job:progress', { jobId: req.jobId, kind: 'import', done, total: req.paths.length, message: `reading ${file}` });
        const format = req.format ?? (await detectFormat(file));
        const batches = await readImport(file, { format, ...overrides });
        const bundle = await bundleForImport(file, batches);
        const summary = applyImportsWithAnnotations(s.project, batches, bundle ? [bundle] : [], overrides);
        files.push({
          path: file,
          format,
          items: summary.itemsAdded,
          responses: summary.responsesAdded,
          configs: summary.configsAdded,
          warnings: [...batches.flatMap((b) => b.warnings), ...summary.warnings],
        });
        done++;
        hooks.emit('job:progress', { jobId: req.jobId, kind: 'import', done, total: req.paths.length, message: `imported ${file}` });
      }
      s.audit.invalidate();
      s.videoCount = null;
      hooks.emit('data:changed', { scope: 'project', item: null });
      return { files };
    },
    'export:run': (req) => {
      const s = need();
      hooks.emit('job:progress', { jobId: req.jobId, kind: 'export', done: 0, total: 1, message: 'writing release' });
      const summary = exportRelease(s.project, path.resolve(req.outDir), { includeText: req.includeText ?? false, zip: req.zip ?? false });
      hooks.emit('job:progress', { jobId: req.jobId, kind: 'export', done: 1, total: 1, message: `${summary.files.length} files` });
      return { outDir: summary.path, files: summary.files.map((f) => f.path) };
    },
    'dialog:pick': async (req) => {
      if (!hooks.pickPaths) throw new ServiceError('unsupported', 'file dialogs exist only in the desktop app; type a path instead');
      return { paths: await hooks.pickPaths(req.kind) };
    },
    'recent:list': () => hooks.recent?.list() ?? (session ? [session.project.path] : []),
    'annotator:get': () => {
      if (!hooks.annotator) throw new ServiceError('unsupported', 'the web mode keeps the annotator name in the browser');
      return hooks.annotator.get();
    },
    'annotator:set': (req) => {
      if (!hooks.annotator) throw new ServiceError('unsupported', 'the web mode keeps the annotator name in the browser');
      return hooks.annotator.set(req.name);
    },
  };

  return { handlers, media, open, project: () => session?.project ?? null, close: closeSession };
}
