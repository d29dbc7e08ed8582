/**
 * The single list of operations between the renderer and the backend (docs/architecture.md:
 * "one contract, two transports"). Electron IPC and the web mode's HTTP bridge both
 * register their handlers from this table and parse every request with its schema; the
 * renderer's two clients are generated from the same table, so a name or a shape cannot
 * drift between transports.
 */
import * as z from 'zod';
import { Empty, op } from './op';
import { ImportOptionValues } from './import-options';
import { annotationEditSchema } from '../domain/annotations';
import { EVENT_NAME_LIST, IPC_PREFIX, OP_NAME_LIST } from './names';
import {
  CascadeItemsRequest,
  CascadeRequest,
  Overview,
  OverviewCascade,
  OverviewItemsRequest,
  QueueFilterSchema,
  QueueSortSchema,
  SavedViewDto,
  SavedViewValue,
  ViewName,
} from './overview';
import { syncOperations } from './sync-contract';
import { teamOperations } from './team-contract';

// ---------------------------------------------------------------- building blocks

export const ItemRef = z.object({
  model: z.string().min(1),
  split: z.string().min(1),
  sampleId: z.string().min(1),
});
export type ItemRef = z.infer<typeof ItemRef>;

export const ANNOTATION_STATUSES = ['todo', 'in_progress', 'done', 'skipped', 'needs_review'] as const;
export const AnnotationStatus = z.enum(ANNOTATION_STATUSES);
export type AnnotationStatus = z.infer<typeof AnnotationStatus>;

export const TRAJECTORY_CLASSES = ['always_correct', 'always_wrong', 'monotonic_increasing', 'monotonic_decreasing', 'oscillating'] as const;

export const ConfigInfo = z.object({
  key: z.string(),
  frames: z.number().int(),
  pixelCount: z.number().nullable(),
  /** Human name of the sampler that chose this config's frames (e.g. `uniform-linspace`). */
  sampler: z.string().nullable(),
});
export type ConfigInfo = z.infer<typeof ConfigInfo>;

export const GridInfo = z.object({
  model: z.string(),
  split: z.string(),
  kind: z.enum(['mcqa', 'open']),
  configs: z.array(ConfigInfo),
  nItems: z.number().int(),
  /** Which score the grid holds (docs/metrics.md §1): `correct`, `token_f1`, or the file's own field. */
  score: z.string(),
});
export type GridInfo = z.infer<typeof GridInfo>;

export const ProjectInfo = z.object({
  path: z.string(),
  name: z.string(),
  readOnly: z.boolean(),
  /** Why the project is read-only (e.g. open in another Flipbook process). */
  readOnlyReason: z.string().nullable(),
  models: z.array(z.string()),
  splits: z.array(z.string()),
  grids: z.array(GridInfo),
  nItems: z.number().int(),
  mediaRoot: z.string().nullable(),
  itemsWithVideo: z.number().int(),
  /** Per split, the items without question text (a release exported without it): the Project view says which file brings it. */
  withoutQuestion: z.array(z.object({ split: z.string(), items: z.number().int() })),
  codebookVersion: z.number().int().nullable(),
});
export type ProjectInfo = z.infer<typeof ProjectInfo>;

export const ItemFlags = z.object({
  visuallyConfused: z.boolean(),
  textOverwritten: z.boolean(),
  terminalRegression: z.boolean(),
});
export type ItemFlags = z.infer<typeof ItemFlags>;

/** One row of the audit queue: a (model, split, item) and what the filters need. */
export const QueueRow = ItemRef.extend({
  taskType: z.string().nullable(),
  trajectoryClass: z.string().nullable(),
  pattern: z.string(),
  flags: ItemFlags,
  /** Harmed transitions (`a>b`, correct at a, wrong at b) over the item's configs. */
  harmed: z.array(z.string()),
  /** Rescued transitions (`a>b`). */
  rescued: z.array(z.string()),
  status: AnnotationStatus,
  annotators: z.array(z.string()),
  hasVideo: z.boolean(),
  /** Lower-cased text searched by the queue's search box (id, question, task type). */
  searchText: z.string(),
});
export type QueueRow = z.infer<typeof QueueRow>;

export const ConfigOutcome = ConfigInfo.extend({
  pred: z.string().nullable(),
  correct: z.boolean().nullable(),
  score: z.number().nullable(),
  /** Where the outcome came from (docs/metrics.md §1): `token_f1`, the file's own field; null = matched by the reader (closed answers). */
  scoreSource: z.string().nullable(),
  confidence: z.number().nullable(),
  margin: z.number().nullable(),
});
export type ConfigOutcome = z.infer<typeof ConfigOutcome>;

export const VideoInfo = z.object({
  url: z.string(),
  mime: z.string(),
  fps: z.number().positive(),
  frameCount: z.number().int().nonnegative(),
  durationS: z.number().nonnegative(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  /** Stream start time: frame k is shown at startS + k / fps. */
  startS: z.number(),
});
export type VideoInfo = z.infer<typeof VideoInfo>;

export const StripFrames = z.object({
  config: z.string(),
  sampler: z.string().nullable(),
  indices: z.array(z.number().int()),
  timesS: z.array(z.number()),
});
export type StripFrames = z.infer<typeof StripFrames>;

/** A generation item's context (shared/domain/item-context.ts): dialogue history, descriptions, a rendered prompt. */
export const ItemContextDto = z.object({
  history: z.array(z.object({ question: z.string(), answer: z.string() })),
  caption: z.string().nullable(),
  summary: z.string().nullable(),
  prompt: z.string().nullable(),
});

export const ItemDetail = ItemRef.extend({
  kind: z.enum(['mcqa', 'open']),
  question: z.string().nullable(),
  options: z.array(z.string()),
  groundTruth: z.string().nullable(),
  /** An open-ended item's reference answer(s); [] when none are in the project. */
  references: z.array(z.string()),
  context: ItemContextDto.nullable(),
  /** Which score the grid holds (docs/metrics.md §1). */
  score: z.string(),
  /** docs/metrics.md §4's ε: the step a continuous score must move to count. */
  eps: z.number(),
  taskType: z.string().nullable(),
  durationS: z.number().nullable(),
  configs: z.array(ConfigOutcome),
  pattern: z.string(),
  trajectoryClass: z.string().nullable(),
  flags: ItemFlags,
  bestConfig: z.string().nullable(),
  terminalConfig: z.string().nullable(),
  harmed: z.array(z.string()),
  rescued: z.array(z.string()),
  /** The transition to explain by default: the terminal regression, else the first harmed. */
  defaultTransition: z.string().nullable(),
  video: VideoInfo.nullable(),
  /** Why there is no video or strip (missing file, unreadable, no media root). */
  videoError: z.string().nullable(),
  frames: z.array(StripFrames),
});
export type ItemDetail = z.infer<typeof ItemDetail>;

export const Tile = z.object({
  config: z.string(),
  index: z.number().int(),
  timeS: z.number(),
  /** Opaque media URL of the thumbnail; null until something is extracted. */
  url: z.string().nullable(),
  /** True while the tile shows the nearest keyframe, not the frame the model saw. */
  approximate: z.boolean(),
});
export type Tile = z.infer<typeof Tile>;

export const Strip = StripFrames.extend({ tiles: z.array(Tile) });
export type Strip = z.infer<typeof Strip>;

export const EvidenceSpan = z.object({
  id: z.string(),
  startS: z.number().nonnegative(),
  endS: z.number().nonnegative(),
  label: z.string(),
  coveredBy: z.array(z.string()),
});
export type EvidenceSpan = z.infer<typeof EvidenceSpan>;

export const AnnotationState = ItemRef.extend({
  annotator: z.string(),
  status: AnnotationStatus,
  primaryPathway: z.string().nullable(),
  pathways: z.array(z.string()),
  transition: z.string().nullable(),
  notes: z.string(),
  confidence: z.number().int().min(1).max(5).nullable(),
  spans: z.array(EvidenceSpan),
  codebookVersion: z.number().int().nullable(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type AnnotationState = z.infer<typeof AnnotationState>;

/** One edit (shared/domain/annotations.ts): one event, one SQLite transaction. Span coverage is recomputed by the backend. */
export const AnnotationEdit = annotationEditSchema;

export const Annotator = z.string().trim().min(1).max(100);

export const Pathway = z.object({
  id: z.string(),
  label: z.string(),
  description: z.string(),
  applies_to: z.array(z.string()),
  shortcut: z.string().nullable(),
});
export const Codebook = z.object({
  id: z.string(),
  version: z.number().int(),
  pathways: z.array(Pathway),
});
export type Codebook = z.infer<typeof Codebook>;

/** One file of an import: how it was read. */
export const ImportFileSummary = z.object({
  path: z.string(),
  format: z.string(),
  warnings: z.array(z.string()),
});
export type ImportFileSummary = z.infer<typeof ImportFileSummary>;

/** What one import (all its files, one transaction) changed: the CLI prints the same. */
export const ImportSummary = z.object({
  itemsAdded: z.number().int(),
  itemsUpdated: z.number().int(),
  responsesAdded: z.number().int(),
  responsesUpdated: z.number().int(),
  configsAdded: z.number().int(),
  models: z.array(z.string()),
  splits: z.array(z.string()),
  configs: z.array(z.string()),
  warnings: z.array(z.string()),
  annotationEventsAdded: z.number().int(),
  /** Per split: items and how many got an answer, when a ground-truth source was given. */
  groundTruth: z.record(z.string(), z.object({ items: z.number().int(), answered: z.number().int() })).nullable(),
  matchedGrid: z.array(z.string()).nullable(),
});
export type ImportSummary = z.infer<typeof ImportSummary>;

export const JobId = z.string().min(1).max(100);

// ---------------------------------------------------------------- operations

/** Most rows one queue:page answer carries. */
export const QUEUE_PAGE_MAX = 1000;

export const operations = {
  'project:open': op(z.object({ path: z.string().min(1), create: z.boolean().optional() }), ProjectInfo, 'Open (or create) a project file; the previous one is closed.'),
  'project:info': op(Empty, ProjectInfo.nullable(), 'The open project, or null.'),
  'grids:list': op(Empty, z.array(GridInfo), 'Every (model, split) grid of the project.'),
  'queue:page': op(
    z.object({
      filter: QueueFilterSchema,
      sort: QueueSortSchema,
      offset: z.number().int().min(0),
      /** At most QUEUE_PAGE_MAX rows: the renderer holds only what it shows. */
      limit: z.number().int().min(0).max(QUEUE_PAGE_MAX),
      /** Whose status the rows show (default: the latest annotator's). */
      annotator: z.string().optional(),
      /** Page around this item instead of at offset: from the row before it (the item view's prev/next). */
      at: ItemRef.optional(),
    }),
    z.object({
      rows: z.array(QueueRow),
      /** Index of rows[0] in the filtered order. */
      offset: z.number().int(),
      /** Rows passing the filter. */
      total: z.number().int(),
      /** Of those, done or skipped (the progress bar). */
      done: z.number().int(),
      /** Rows of the project before filtering. */
      all: z.number().int(),
      /** Index of `at` in the filtered order, -1 when the filter hides it (or no `at`). */
      position: z.number().int(),
      /** What the filter controls offer, over every row. */
      facets: z.object({ taskTypes: z.array(z.string()), transitions: z.array(z.string()), annotators: z.array(z.string()) }),
    }),
    'One page of the audit queue, filtered and sorted in the backend over rows cached per project (rebuilt after an import, statuses after an annotation change).',
  ),
  'item:get': op(
    ItemRef.extend({ jobId: JobId.optional() }),
    ItemDetail,
    'Everything the item view shows except the tiles; an unplayable codec is transcoded to an H.264 proxy first (progress as job:progress of jobId, kind proxy).',
  ),
  'frames:strips': op(
    ItemRef.extend({
      jobId: JobId,
      width: z.number().int().min(32).max(1920).optional(),
      /** 0 = the item on screen (default); higher = background prefetch of the queue's next items. */
      priority: z.number().int().min(0).max(10).optional(),
    }),
    z.object({ strips: z.array(Strip) }),
    'Tiles per config; returns what is ready now (approximate or cached) and streams the rest as frames:tile events.',
  ),
  'frames:cancel': op(z.object({ jobId: JobId }), z.object({ cancelled: z.boolean() }), 'Stop extraction for an item the user left.'),
  'frames:full': op(
    ItemRef.extend({ index: z.number().int().nonnegative() }),
    z.object({ url: z.string() }),
    'One exact frame at full size (hover on a tile), extracted on demand and cached.',
  ),
  'annotation:state': op(ItemRef.extend({ annotator: Annotator }), AnnotationState, "The annotator's current annotation of an item (empty todo state when none)."),
  'annotation:apply': op(z.object({ annotator: Annotator, edit: AnnotationEdit }), AnnotationState, 'One edit = one SQLite transaction; the returned state is what is saved.', {
    writes: 'inline',
    changes: 'annotations',
  }),
  'annotation:undo': op(
    z.object({ annotator: Annotator, item: ItemRef }),
    z.object({ item: ItemRef, state: AnnotationState }).nullable(),
    "Undo the annotator's last edit of this item (the one on screen: an undo never changes what the user cannot see); null when there is nothing to undo.",
    { writes: 'inline', changes: 'annotations' },
  ),
  'annotation:redo': op(
    z.object({ annotator: Annotator, item: ItemRef }),
    z.object({ item: ItemRef, state: AnnotationState }).nullable(),
    "Redo the annotator's last undone edit of this item; null when there is nothing to redo.",
    { writes: 'inline', changes: 'annotations' },
  ),
  'codebook:get': op(Empty, Codebook, "The project's codebook."),
  'settings:get': op(z.object({ key: z.enum(['mediaRoot', 'matchedGrid', 'mainProtocol']) }), z.string().nullable(), 'A project setting.'),
  'settings:set': op(
    // mainProtocol: a variant tag, or `untagged`; null restores the default (docs/metrics.md §6).
    z.object({ key: z.enum(['mediaRoot', 'matchedGrid', 'mainProtocol']), value: z.string().nullable() }),
    ProjectInfo,
    'Change a project setting; returns the refreshed project info.',
    // The main protocol decides every grid's numbers and the queue's rows: views re-read the project.
    { writes: 'inline', changes: (req) => (req.key === 'mainProtocol' ? 'project' : 'settings') },
  ),
  'import:run': op(
    z.object({
      jobId: JobId,
      paths: z.array(z.string().min(1)).min(1),
      // The options of `flipbook import`, from the same table (shared/api/import-options.ts).
      ...ImportOptionValues.shape,
    }),
    z.object({ files: z.array(ImportFileSummary), summary: ImportSummary }),
    'Import files into the open project: every file read first, then all applied in ONE transaction (a rejected file changes nothing); progress as job:progress.',
    { writes: 'job' },
  ),
  'export:run': op(
    z.object({ jobId: JobId, outDir: z.string().min(1), includeText: z.boolean().optional(), zip: z.boolean().optional() }),
    z.object({ outDir: z.string(), files: z.array(z.string()) }),
    'Write the release layout (docs/release-format.md) to a folder.',
  ),
  'job:cancel': op(
    z.object({ jobId: JobId }),
    z.object({ cancelled: z.boolean() }),
    'Cancel a running import, export or merge: its worker stops and nothing it had not committed remains (an import changes nothing); its call answers `cancelled`.',
  ),
  'dialog:pick': op(
    z.object({ kind: z.enum(['open-project', 'new-project', 'import', 'export-dir', 'media-root']) }),
    z.object({ paths: z.array(z.string()) }),
    'Native file dialog (Electron only; the web mode answers `unsupported` and the UI shows a path field).',
  ),
  'files:list': op(
    z.object({ path: z.string().min(1).max(4096).nullable() }),
    z.object({
      /** The folder listed (absolute, symlinks resolved). */
      path: z.string(),
      /** Its parent when that is still inside a browsable folder, else null. */
      parent: z.string().nullable(),
      /** The folders this chooser may show: the user's home, the project's folder, the media root. */
      roots: z.array(z.string()),
      entries: z.array(z.object({ name: z.string(), kind: z.enum(['dir', 'file']), bytes: z.number().nullable() })),
      /** More entries than FILES_LIST_MAX: the list is cut (folders first, then files, by name). */
      truncated: z.boolean(),
    }),
    "The web mode's file chooser: one folder's entries, only inside the user's own folders (docs/security.md \"Web mode\").",
  ),
  'recent:list': op(Empty, z.array(z.string()), 'Recently opened projects (Electron; web mode: the served project).'),
  'annotator:get': op(Empty, z.string().nullable(), 'The annotator name of this machine.'),
  'annotator:set': op(z.object({ name: Annotator }), z.string(), 'Remember the annotator name on this machine.'),
  'overview:get': op(Empty, Overview, 'The overview: per-grid metrics, flows, wins, trajectories, iso-compute, default cascade; the matched-grid table.'),
  'overview:cascade': op(
    CascadeRequest,
    z.object({ cascade: OverviewCascade.nullable(), note: z.string().nullable() }),
    'The confidence cascade of a grid over chosen budgets against a chosen reference (or why there is none).',
  ),
  'overview:cascade-items': op(
    CascadeItemsRequest,
    z.object({ correct: z.array(z.string()) }),
    'The items the cascade at one τ answers correctly (the items behind one point of the cascade chart).',
  ),
  'overview:items': op(
    OverviewItemsRequest,
    z.object({ ids: z.array(z.string()) }),
    'The complete items of a grid behind one overview mark (a flip-matrix cell, an accuracy point, a rate, a heatmap pattern row): what its click opens in the queue.',
  ),
  'views:list': op(Empty, z.array(SavedViewDto), 'Saved queue views of the project, by name.'),
  'views:save': op(z.object({ name: ViewName, value: SavedViewValue }), SavedViewDto, 'Save (or replace) a queue view by name.', { writes: 'inline' }),
  'views:rename': op(z.object({ id: z.number().int(), name: ViewName }), z.array(SavedViewDto), 'Rename a saved view; returns the list.', { writes: 'inline' }),
  'views:delete': op(z.object({ id: z.number().int() }), z.array(SavedViewDto), 'Delete a saved view; returns the list.', { writes: 'inline' }),
  ...teamOperations,
  ...syncOperations,
} as const;

export type Operations = typeof operations;
export type OpName = keyof Operations;
export const OP_NAMES = Object.keys(operations) as OpName[];
export type Req<N extends OpName> = z.input<Operations[N]['request']>;
export type Res<N extends OpName> = z.infer<Operations[N]['response']>;

// ---------------------------------------------------------------- events

export const events = {
  'job:progress': z.object({
    jobId: JobId,
    kind: z.enum(['import', 'export', 'merge', 'frames', 'proxy']),
    done: z.number(),
    total: z.number(),
    message: z.string().nullable(),
  }),
  'frames:tile': ItemRef.extend({ jobId: JobId, tile: Tile }),
  'data:changed': z.object({ scope: z.enum(['project', 'annotations', 'settings']), item: ItemRef.nullable() }),
  /** Menu commands forwarded to the renderer (Electron). */
  'menu:command': z.object({
    command: z.enum(['new-project', 'open-project', 'import', 'export', 'undo', 'redo', 'shortcuts']),
  }),
} as const;
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.infer<Events[E]>;

// ---------------------------------------------------------------- results

export const ERROR_CODES = [
  'bad-request',
  'not-found',
  'no-project',
  'read-only',
  'locked',
  'import-error',
  'unsupported',
  'cancelled',
  /** An edit made on a view older than the saved state, refused (shared/domain/edit-check.ts). */
  'conflict',
  'forbidden',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];
export interface ApiError {
  code: ErrorCode;
  message: string;
}
export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** IPC channel names: one per operation, prefixed so nothing else on ipcMain can collide. */
export const ipcChannel = (name: OpName): string => `${IPC_PREFIX}${name}`;

// Compile-time proof that names.ts (used by the preload) lists exactly these operations/events.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _opsMatch: Same<(typeof OP_NAME_LIST)[number], OpName> = true;
const _eventsMatch: Same<(typeof EVENT_NAME_LIST)[number], EventName> = true;
void _opsMatch;
void _eventsMatch;

export function isOpName(s: string): s is OpName {
  return Object.prototype.hasOwnProperty.call(operations, s);
}
