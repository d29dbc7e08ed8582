/**
 * What the backend's handler files share: the host hooks a transport passes in, the open
 * project's session (audit index, frame service, frame selections, running jobs) and the few
 * helpers several handler files use. createBackend owns the session; handler files receive a
 * BackendContext and call need() for the open session.
 */
import type { EventName, EventPayload } from '../../shared/api/contract';
import type { ConfigSpec } from '../../shared/domain/types';
import { defaultPolicyForModel } from '../../shared/samplers/index';
import type { Project } from '../store/project';
import type { FrameService } from '../frames/frame-service';
import type { ConfigFrames } from '../frames/frame-selection';
import type { VideoMeta } from '../media/video-meta';
import type { AuditIndex } from '../derived/audit-index';
import type { QueueTable } from '../derived/queue-table';
import type { MediaRegistry } from '../media/media-registry';
import type { BackgroundJobs } from '../jobs/background-jobs';
import { selectItemFrames } from '../frames/item-frames';

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

export interface Session {
  project: Project;
  readOnlyReason: string | null;
  audit: AuditIndex;
  /** The queue's rows, derived once per import into the project (queue-table.ts). */
  queue: QueueTable;
  frames: FrameService;
  /** Per (model, split, sample): the frames each config saw, for coverage and strips. */
  selections: Map<string, { meta: VideoMeta; configs: ConfigFrames[] }>;
  jobs: Map<string, AbortController>;
  /** Items whose video resolves, and per split the items without question text (project:info); null until counted. */
  itemCounts: { video: number; withoutQuestion: { split: string; items: number }[] } | null;
  /** Frame cache folder of the project; also holds H.264 proxies of unplayable videos. */
  cacheDir: string;
}

/** What a handler file gets from createBackend. */
export interface BackendContext {
  hooks: HostHooks;
  media: MediaRegistry;
  /** The open session, or the no-project ServiceError. */
  need(): Session;
  /** The open session or null (for operations that are harmless without a project). */
  current(): Session | null;
  /** Import, export and merge in worker threads (background-jobs.ts). */
  background: BackgroundJobs;
}

export const itemKey = (model: string, split: string, sampleId: string) => `${model}\u0000${split}\u0000${sampleId}`;

/**
 * The strip's legend: the sampler policy always, even when the response recorded its
 * frame_indices (then the policy is the one the run would have used, and the legend says the
 * indices are the recorded ones). Text-only configs have no sampler (null).
 */
export function samplerName(c: ConfigFrames, spec: ConfigSpec | undefined, model: string): string | null {
  if (spec && spec.frames === 0 && c.frames.length === 0) return null;
  if (c.source === 'recorded') {
    const p = spec?.sampling.policy && spec.sampling.policy !== 'explicit' ? spec.sampling.policy : defaultPolicyForModel(model, spec?.toolkit ?? null);
    return `${p} · recorded indices`;
  }
  return `${c.policy}${c.source === 'model-default' ? ' (model default)' : c.source === 'override' ? ' (override)' : ''}`;
}

/** Frames per config for an item (probe cached by the frame service); null without video. */
export async function selection(s: Session, model: string, split: string, sampleId: string, configs: ConfigSpec[]) {
  const k = itemKey(model, split, sampleId);
  const hit = s.selections.get(k);
  if (hit) return hit;
  const sel = await selectItemFrames(s.project, (file) => s.frames.probe(file), { model, split, sampleId }, configs);
  if (sel === null) return null;
  s.selections.set(k, sel);
  return sel;
}

export function uniqueFrames(c: ConfigFrames): { index: number; timeS: number }[] {
  const seen = new Map<number, number>();
  c.frames.forEach((f, i) => {
    if (!seen.has(f)) seen.set(f, c.timestampsS[i] ?? 0);
  });
  return [...seen].map(([index, timeS]) => ({ index, timeS }));
}
