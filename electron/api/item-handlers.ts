/**
 * Handlers of the audit queue and the item view: the queue's rows (one per item and model, with
 * trajectory class, flags and annotation status) and an item's detail (question, per-config
 * responses, playable video, frames per config).
 */
import { defaultTransition } from '../../shared/engine/default-transition';
import type { ItemDetail } from '../../shared/api/contract';
import { ensurePlayable } from '../media/proxy';
import type { Handlers } from './dispatch';
import { ServiceError } from '../../shared/api/service-error';
import { mimeOf } from '../media/media-registry';
import { videoPathOf } from '../media/item-video';
import { samplerName, selection, uniqueFrames, type BackendContext, type Session } from './backend-session';
import { scoreSourceOf, TOKEN_F1_SOURCE } from '../../shared/domain/score';
import { DEFAULT_EPS } from '../../shared/engine/continuous';

export function itemHandlers(ctx: BackendContext): Pick<Handlers, 'queue:page' | 'item:get'> {
  const { hooks, media, need } = ctx;

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
    return {
      model,
      split,
      sampleId,
      kind: g.kind,
      question: meta?.question ?? null,
      options: meta?.options ?? [],
      groundTruth: meta?.answer ?? [...responses.values()].find((r) => r.groundTruth)?.groundTruth ?? null,
      references: meta?.references ?? [],
      context: meta?.context ?? null,
      score: p.listGrids().find((x) => x.model === model && x.split === split)?.score ?? (g.kind === 'open' ? TOKEN_F1_SOURCE : 'correct'),
      eps: DEFAULT_EPS,
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
          scoreSource: scoreSourceOf(r?.protocolNote),
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
      defaultTransition: defaultTransition(harmed, (key) => g.configs.find((c) => c.key === key)?.frames),
      video,
      videoError,
      frames: (sel?.configs ?? []).map((c) => {
        const u = uniqueFrames(c);
        return {
          config: c.configKey,
          sampler: samplerName(
            c,
            g.configs.find((x) => x.key === c.configKey),
            model,
          ),
          indices: u.map((x) => x.index),
          timesS: u.map((x) => x.timeS),
        };
      }),
    };
  };

  return {
    'queue:page': (req) => need().queue.page(req),
    'item:get': (req) => itemDetail(need(), req.model, req.split, req.sampleId, req.jobId),
  };
}
