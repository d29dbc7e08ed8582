/**
 * The sample project's responses as ImportBatches (one per simulated model, so each carries
 * its own run and its own per-config sampling policy), derived from the schedule.
 */
import { createHash } from 'node:crypto';
import type { ConfigSpec, ImportBatch, ItemMeta, ResponseRow } from '../../shared/domain/types';
import { makeConfigSpec } from '../../shared/engine/config';
import { sampleFrames } from '../../shared/samplers/index';
import { deriveItems, type SampleItem } from './questions';
import type { Schedule } from './schedule';
import { SIM_MODELS, simulateAnswer, type SimModel } from './simulated-models';

/** Bump when the derivation of items or responses changes (part of the run's sha256). */
export const SAMPLE_GENERATOR_VERSION = 1;
export const SAMPLE_FRAME_BUDGETS = [0, 8, 16, 32, 64] as const;
export const SAMPLE_PIXEL_LABEL = '151k';
export const SAMPLE_FORMAT = 'flipbook-sample';

export function sampleConfigKey(frames: number): string {
  return frames === 0 ? 'textonly' : `${frames}f_${SAMPLE_PIXEL_LABEL}`;
}

export function sampleConfigs(model: SimModel): ConfigSpec[] {
  return SAMPLE_FRAME_BUDGETS.map((frames) =>
    makeConfigSpec(sampleConfigKey(frames), {
      sampling: frames === 0 ? { policy: null, seed: null, fps: null } : { policy: model.policy, seed: null, fps: null },
      pipeline: 'raw',
      toolkit: SAMPLE_FORMAT,
      modelArgs: `trackFrames=${model.trackFrames}`,
      notes: 'simulated model of the embedded sample project (electron/sample/simulated-models.ts)',
    }),
  );
}

export function sampleItemMeta(schedule: Schedule, item: SampleItem): ItemMeta {
  return {
    split: schedule.split,
    sampleId: item.sampleId,
    question: item.question,
    options: item.options,
    answer: item.answer,
    taskType: item.taskType,
    durationS: item.video.durationS,
    durationBucket: 'short',
    videoId: item.video.id,
    videoFile: `${item.video.id}.mp4`,
    kind: 'mcqa',
  };
}

export function buildSampleBatches(schedule: Schedule, scheduleText: string): ImportBatch[] {
  const items = deriveItems(schedule);
  const metas = items.map((it) => sampleItemMeta(schedule, it));
  return SIM_MODELS.map((model) => {
    const responses: ResponseRow[] = [];
    let line = 0;
    for (const item of items) {
      const total = item.video.durationS * schedule.fps;
      for (const frames of SAMPLE_FRAME_BUDGETS) {
        const sampled = frames === 0 ? null : sampleFrames(model.policy, { total, n: frames });
        const a = simulateAnswer(model, item, sampled, schedule);
        responses.push({
          model: model.name,
          split: schedule.split,
          sampleId: item.sampleId,
          config: sampleConfigKey(frames),
          pred: a.pred,
          correct: a.pred === item.answer,
          score: null,
          groundTruth: item.answer,
          confidence: a.confidence,
          margin: null,
          latencyMs: a.latencyMs,
          frameIndices: sampled,
          sourceTag: 'simulated',
          protocolNote: null,
          line: ++line,
        });
      }
    }
    const sha256 = createHash('sha256').update(`${SAMPLE_GENERATOR_VERSION}\n${model.name}\n${scheduleText}`).digest('hex');
    return {
      run: {
        sourcePath: `assets/sample/schedule.json#${model.name}`,
        sha256,
        format: SAMPLE_FORMAT,
        toolkit: SAMPLE_FORMAT,
        modelArgs: `policy=${model.policy} trackFrames=${model.trackFrames}`,
      },
      items: metas,
      responses,
      configs: sampleConfigs(model),
      warnings: [],
    };
  });
}
