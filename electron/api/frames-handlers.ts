/**
 * Handlers of the frame strips: strips for an item (tiles stream in as `frames:tile` events,
 * approximate keyframes first, exact frames after), cancelling a strip job, and one full-size
 * frame.
 */
import type { Strip, Tile } from '../../shared/api/contract';
import { extractItemFrames, prefetchItemKeyframes } from '../frames/item-strips';
import type { Handlers } from './dispatch';
import { ServiceError } from '../../shared/api/service-error';
import { videoPathOf } from '../media/item-video';
import { samplerName, selection, uniqueFrames, type BackendContext } from './backend-session';

export function framesHandlers(ctx: BackendContext): Pick<Handlers, 'frames:strips' | 'frames:cancel' | 'frames:full'> {
  const { hooks, media, need } = ctx;
  return {
    'frames:strips': async (req) => {
      const s = need();
      const g = s.audit.grid(req.model, req.split);
      const { file, error } = videoPathOf(s.project, req.split, req.sampleId);
      if (file === null) throw new ServiceError('not-found', error ?? 'no video');
      const controller = new AbortController();
      s.jobs.get(req.jobId)?.abort();
      s.jobs.set(req.jobId, controller);
      const opts = { signal: controller.signal, priority: req.priority ?? 0 };
      prefetchItemKeyframes(s.frames, file, opts);
      // then(done, done), not finally(): finally() re-rejects with a cancelled extraction's error,
      // an unhandled rejection that would end the server process.
      const done = () => {
        if (s.jobs.get(req.jobId) === controller) s.jobs.delete(req.jobId);
      };
      const stop = () => {
        controller.abort();
        done();
      };
      // The one selection of this request: the strips drawn and the frames extracted are the same.
      const sel = await selection(s, req.model, req.split, req.sampleId, g.configs).catch((e: unknown) => {
        stop();
        throw e;
      });
      if (sel === null) {
        stop();
        throw new ServiceError('not-found', 'no video');
      }
      const strips: Strip[] = sel.configs.map((c) => {
        const u = uniqueFrames(c);
        return {
          config: c.configKey,
          sampler: samplerName(
            c,
            g.configs.find((x) => x.key === c.configKey),
            req.model,
          ),
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
      const strip = extractItemFrames(s.frames, sel, {
        ...opts,
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
      });
      void strip.frames.then(done, done);
      return { strips };
    },
    'frames:cancel': (req) => {
      const s = ctx.current();
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
  };
}
