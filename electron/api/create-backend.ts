/**
 * The backend behind both transports: one open project, its derived audit index, the frame
 * service and the media registry, and one handler per contract operation. Electron's IPC
 * bridge and the web mode's HTTP server both call createBackend() and differ only in the
 * HostHooks they pass (how events reach the renderer, how media URLs look, dialogs). The
 * handlers live in one file per area (item-, frames-, annotation-, import-, overview- and
 * team-handlers.ts); this file holds the session and the project-level operations.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { MAIN_PROTOCOL_SETTING } from '../../shared/engine/protocols';
import { knownProtocol } from '../store/protocols';
import type { Res } from '../../shared/api/contract';
import { openProject as openStore, type Project } from '../store/project';
import { ProjectLockedError, ProjectNotWritableError } from '../store/errors';
import { createFrameService } from '../frames/frame-service';
import { frameCacheDirForProject } from '../frames/frame-cache';
import { withEffects, type Handlers } from './dispatch';
import { ServiceError } from '../../shared/api/service-error';
import { createAuditIndex } from '../derived/audit-index';
import { createQueueTable } from '../derived/queue-table';
import { createMediaRegistry, type MediaRegistry } from '../media/media-registry';
import { createProjectMetadataCache } from '../media/project-metadata-cache';
import { mediaRootOf, projectVideoResolver } from '../media/item-video';
import { overviewHandlers } from './overview-handlers';
import { createTeamHandlers } from './team-handlers';
import { createSyncService } from './sync-handlers';
import { itemHandlers } from './item-handlers';
import { framesHandlers } from './frames-handlers';
import { annotationHandlers } from './annotation-handlers';
import { afterProjectWrite, importHandlers } from './import-handlers';
import { filesHandlers } from './files-handlers';
import { createBackgroundJobs } from '../jobs/background-jobs';
import { operations } from '../../shared/api/contract';
import type { BackendContext, HostHooks, Session } from './backend-session';

export type { HostHooks, PickKind } from './backend-session';

export interface Backend {
  handlers: Handlers;
  media: MediaRegistry;
  open(file: string, opts?: { create?: boolean }): Res<'project:open'>;
  project(): Project | null;
  close(): void;
}

export function createBackend(hooks: HostHooks, opts: { media?: MediaRegistry } = {}): Backend {
  // The backend thread of the desktop app passes a registry that tells main about each id (backend-host.ts).
  const media = opts.media ?? createMediaRegistry();
  let session: Session | null = null;

  const need = (): Session => {
    if (session === null) throw new ServiceError('no-project', 'no project is open');
    return session;
  };

  const background = createBackgroundJobs({ progress: (p) => hooks.emit('job:progress', p) });

  const sync = createSyncService({ project: () => need().project, emit: (e, p) => hooks.emit(e, p) });

  const closeSession = () => {
    if (!session) return;
    sync.stop();
    background.cancelAll();
    for (const c of session.jobs.values()) c.abort();
    session.frames.close();
    session.project.close();
    session = null;
    media.clear();
  };

  /** One pass over the items for project:info: which have a video, which splits lack question text. */
  const countItems = (s: Session): NonNullable<Session['itemCounts']> => {
    if (s.itemCounts !== null) return s.itemCounts;
    const video = projectVideoResolver(s.project);
    let n = 0;
    const noQuestion = new Map<string, number>();
    for (const it of s.project.listItems()) {
      if (video(it.videoFile).file !== null) n++;
      if (it.question == null || it.question === '') noQuestion.set(it.split, (noQuestion.get(it.split) ?? 0) + 1);
    }
    s.itemCounts = { video: n, withoutQuestion: [...noQuestion].map(([split, items]) => ({ split, items })) };
    return s.itemCounts;
  };

  const gridsOf = (p: Project): NonNullable<Res<'project:info'>>['grids'] =>
    p.listGrids().map((g) => ({
      model: g.model,
      split: g.split,
      kind: g.kind,
      configs: g.configs.map((c) => ({ key: c.key, frames: c.frames, pixelCount: c.pixelCount, sampler: c.sampling.policy })),
      nItems: g.nItems,
      score: g.score,
    }));

  const info = (): Res<'project:info'> => {
    if (!session) return null;
    const p = session.project;
    return {
      path: p.path,
      name: path.basename(p.path),
      readOnly: p.readOnly,
      readOnlyReason: session.readOnlyReason,
      models: p.listModels(),
      splits: p.listSplits(),
      grids: gridsOf(p),
      nItems: p.countItems(),
      mediaRoot: mediaRootOf(p),
      itemsWithVideo: countItems(session).video,
      withoutQuestion: countItems(session).withoutQuestion,
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
      } else if (e instanceof ProjectNotWritableError) {
        // Nothing can be written there (docs/security.md "Read-only locations"): viewing still works.
        project = openStore(file, { readOnly: true });
        readOnlyReason = e.message;
      } else if (e instanceof ProjectLockedError) throw new ServiceError('locked', e.message);
      else throw e;
    }
    const audit = createAuditIndex(project);
    const cacheDir = frameCacheDirForProject(project.path);
    session = {
      project,
      readOnlyReason,
      audit,
      queue: createQueueTable(project, { deferRefresh: () => background.writing() }),
      frames: createFrameService({ cacheDir, metadataCache: createProjectMetadataCache(project) }),
      selections: new Map(),
      jobs: new Map(),
      itemCounts: null,
      cacheDir,
    };
    hooks.recent?.add(project.path);
    sync.resume();
    return info() as NonNullable<Res<'project:info'>>;
  };

  const ctx: BackendContext = { hooks, media, need, current: () => session, background };
  const merge = async (bundlePath: string, jobId: string | undefined) => {
    const s = need();
    try {
      return await background.run(jobId ?? `merge-${randomUUID()}`, { kind: 'merge', project: s.project.path, path: path.resolve(bundlePath) }, operations['team:merge'].response);
    } finally {
      if (session === s) afterProjectWrite(ctx, s);
    }
  };
  const plain: Handlers = {
    ...overviewHandlers(() => need().project),
    ...createTeamHandlers({ project: () => need().project, merge }),
    ...sync.handlers,
    ...itemHandlers(ctx),
    ...framesHandlers(ctx),
    ...annotationHandlers(ctx),
    ...importHandlers(ctx),
    ...filesHandlers(() => session),
    'project:open': (req) => open(req.path, { create: req.create ?? false }),
    'project:info': () => info(),
    // Only the grids: not the item count, codebook and (on first use) every item's video check info() makes.
    'grids:list': () => (session ? gridsOf(session.project) : []),
    'settings:get': (req) => {
      const v = need().project.getSetting<unknown>(req.key);
      if (v === undefined || v === null) return null;
      return Array.isArray(v) ? v.join(',') : String(v);
    },
    'settings:set': (req) => {
      const s = need();
      if (req.value === null) s.project.deleteSetting(req.key);
      else if (req.key === 'matchedGrid')
        s.project.setSetting(
          req.key,
          req.value
            .split(',')
            .map((x) => x.trim())
            .filter((x) => x !== ''),
        );
      else if (req.key === 'mainProtocol') {
        const name = knownProtocol(s.project, req.value);
        if (typeof name !== 'string') throw new ServiceError('bad-request', `main protocol ${name.error}`);
        s.project.setSetting(MAIN_PROTOCOL_SETTING, name);
      } else s.project.setSetting(req.key, path.resolve(req.value));
      s.itemCounts = null;
      s.selections.clear();
      s.audit.invalidate();
      return info() as NonNullable<Res<'project:info'>>;
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
  // The contract's declared effects (shared/api/op.ts): read-only refusal, waiting while a job
  // writes, and one data:changed per change — here once, for every transport.
  const handlers = withEffects(plain, {
    readOnlyReason: () => (session?.project.readOnly ? (session.readOnlyReason ?? 'opened read-only') : null),
    writesIdle: () => background.writesIdle(),
    changed: (payload) => hooks.emit('data:changed', payload),
  });
  return { handlers, media, open, project: () => session?.project ?? null, close: closeSession };
}
