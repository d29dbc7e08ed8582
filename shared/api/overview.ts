/**
 * Schemas of the overview and of saved queue views as they cross the
 * transport. The numbers are the engine's (shared/engine) — the backend only reshapes them —
 * so the charts, the CLI and the release export can never disagree.
 */
import * as z from 'zod';
import { MEMBERSHIP_SETS } from '../engine/protocols';

const Counts = z.record(z.string(), z.number());

export const OverviewMetrics = z.object({
  n: z.number().int(),
  nExcluded: z.number().int(),
  configs: z.array(z.string()),
  accuracy: Counts,
  correctCounts: Counts,
  bestFixed: z.string().nullable(),
  oracleAccuracy: z.number(),
  oracleHeadroomPts: z.number(),
  visualConfusionRate: z.number(),
  visualConfusionRateVisualOnly: z.number(),
  textOverwriteRate: z.number().nullable(),
  textOverwriteRateOfTextCorrect: z.number().nullable(),
  terminalConfig: z.string().nullable(),
  terminalRegressionRate: z.number(),
  counts: z.object({
    oracle: z.number().int(),
    visuallyConfused: z.number().int(),
    visuallyConfusedVisualOnly: z.number().int(),
    textOverwritten: z.number().int(),
    textCorrect: z.number().int(),
    terminalRegressions: z.number().int(),
  }),
});
export type OverviewMetrics = z.infer<typeof OverviewMetrics>;

export const OverviewTransition = z.object({
  from: z.string(),
  to: z.string(),
  rescued: z.number().int(),
  harmed: z.number().int(),
  churn: z.number().int(),
  churnRate: z.number(),
  netPts: z.number(),
  mcnemarP: z.number(),
});
export type OverviewTransition = z.infer<typeof OverviewTransition>;

/**
 * The overview's answer has a size set by the numbers of grids and configs, never by the number
 * of items (docs/architecture.md "The overview at lab scale"): a grid lists its items one by one
 * only up to HEATMAP_ITEM_ROWS; beyond, the heatmap shows its most frequent HEATMAP_PATTERN_ROWS
 * correctness patterns and one row for the rest, and every mark's items are asked for
 * (overview:items) when it is clicked.
 */
export const HEATMAP_ITEM_ROWS = 300;
export const HEATMAP_PATTERN_ROWS = 40;
/** Points of a cascade's Pareto front sent for drawing (evenly spread over it, ends kept). */
export const CASCADE_PARETO_POINTS = 200;

/** One complete item of a grid: its pattern over the grid's configs (config order) and class. */
export const OverviewRow = z.object({
  sampleId: z.string(),
  pattern: z.string(),
  cls: z.string().nullable(),
  confused: z.boolean(),
  textOverwritten: z.boolean(),
  terminalRegression: z.boolean(),
});
export type OverviewRow = z.infer<typeof OverviewRow>;

/**
 * One distinct correctness pattern of a grid's complete items and how many items have it. Class
 * and flags are functions of the pattern (docs/metrics.md §2–3), so they are exact for all n.
 */
export const OverviewPatternRow = OverviewRow.omit({ sampleId: true }).extend({ n: z.number().int().positive() });
export type OverviewPatternRow = z.infer<typeof OverviewPatternRow>;

export const OverviewHeatmap = z.object({
  /** Every complete item (sample-id order), or null when the grid has more than HEATMAP_ITEM_ROWS. */
  items: z.array(OverviewRow).max(HEATMAP_ITEM_ROWS).nullable(),
  /** The most frequent patterns, most items first (ties: pattern order). */
  patterns: z.array(OverviewPatternRow).max(HEATMAP_PATTERN_ROWS),
  /** The complete items whose pattern is not listed: how many, in how many patterns, and per config (config order) how many are correct. */
  rest: z.object({ n: z.number().int().positive(), patterns: z.number().int().positive(), correct: z.array(z.number().int()) }).nullable(),
});
export type OverviewHeatmap = z.infer<typeof OverviewHeatmap>;

export const OverviewIsoGroup = z.object({
  configs: z.array(z.string()),
  compute: z.array(z.number()),
  bestConfig: z.string(),
  bestAccuracy: z.number(),
  oracleAccuracy: z.number(),
  oracleHeadroomPts: z.number(),
  pairs: z.array(z.object({ a: z.string(), b: z.string(), onlyA: z.number().int(), onlyB: z.number().int(), both: z.number().int(), neither: z.number().int() })),
});
export type OverviewIsoGroup = z.infer<typeof OverviewIsoGroup>;

/** τ = +∞ (every item runs to the last budget) travels as null: JSON has no infinity. */
export const CascadePointDto = z.object({
  tau: z.number().nullable(),
  correct: z.number().int(),
  accuracy: z.number(),
  meanSharedCost: z.number(),
  meanUnsharedCost: z.number(),
});
export type CascadePointDto = z.infer<typeof CascadePointDto>;

export const OverviewCascade = z.object({
  budgets: z.array(z.string()),
  reference: z.string(),
  n: z.number().int(),
  nExcluded: z.number().int(),
  signal: z.enum(['margin', 'confidence']),
  referenceAccuracy: z.number(),
  referenceFrames: z.number(),
  /** The Pareto front, thinned to CASCADE_PARETO_POINTS evenly spread points when longer (ends kept). */
  pareto: z.array(CascadePointDto).max(CASCADE_PARETO_POINTS),
  /** Points on the whole front (the CLI's `flipbook cascade` lists them all). */
  paretoPoints: z.number().int(),
  operatingPoint: CascadePointDto.extend({ savingVsReference: z.number(), unsharedSavingVsReference: z.number() }).nullable(),
  heldOut: z.object({
    seed: z.number().int(),
    nTune: z.number().int(),
    nEval: z.number().int(),
    tau: z.number().nullable(),
    accuracy: z.number().nullable(),
    referenceAccuracy: z.number(),
    meanSharedCost: z.number().nullable(),
    savingVsReference: z.number().nullable(),
  }),
});
export type OverviewCascade = z.infer<typeof OverviewCascade>;

/** Bins of an open-ended grid's score distribution: [0, 0.1), [0.1, 0.2), …, [0.9, 1]. */
export const SCORE_BINS = 10;

/** The bin of a score in [0, 1] (1 falls in the last bin). */
export function scoreBin(s: number): number {
  return Math.min(SCORE_BINS - 1, Math.max(0, Math.floor(s * SCORE_BINS)));
}

export const OverviewOpenTransition = z.object({
  from: z.string(),
  to: z.string(),
  /** Complete items with s(b) > s(a) + ε. */
  improved: z.number().int(),
  /** Complete items with s(b) < s(a) − ε. */
  regressed: z.number().int(),
  netPts: z.number(),
});
export type OverviewOpenTransition = z.infer<typeof OverviewOpenTransition>;

/**
 * An open-ended (continuous) grid's figures, docs/metrics.md §4: means, the oracle gap, the
 * items that regress with budget and the terminal regressions (counts, with ε), the flows of
 * every transition, each config's score distribution over the complete items and the most
 * frequent step patterns. Sized by configs and bins, never by items.
 */
export const OverviewOpen = z.object({
  n: z.number().int(),
  nExcluded: z.number().int(),
  configs: z.array(z.string()),
  eps: z.number(),
  mean: Counts,
  bestFixed: z.string().nullable(),
  oracleMean: z.number(),
  oracleGapPts: z.number(),
  regressionRate: z.number(),
  terminalConfig: z.string().nullable(),
  terminalRegressionRate: z.number(),
  counts: z.object({ regressed: z.number().int(), terminalRegressions: z.number().int() }),
  transitions: z.array(OverviewOpenTransition),
  /** Per config (config order): complete items per score bin (SCORE_BINS). */
  distribution: z.array(z.object({ config: z.string(), bins: z.array(z.number().int()).length(SCORE_BINS) })),
  /** The most frequent step patterns of complete items, most items first (ties: pattern order). */
  patterns: z.array(z.object({ pattern: z.string(), n: z.number().int().positive(), cls: z.string().nullable() })).max(HEATMAP_PATTERN_ROWS),
});
export type OverviewOpen = z.infer<typeof OverviewOpen>;
/** A membership set's counts under the two protocols (docs/metrics.md §6); its items come by mark. */
const OverviewMembership = z.object({ onlyMain: z.number().int(), onlyVariant: z.number().int(), both: z.number().int(), jaccard: z.number().nullable() });

const OverviewProtocolSide = z.object({
  n: z.number().int(),
  visualConfusionRate: z.number(),
  terminalRegressionRate: z.number(),
  textOverwriteRate: z.number().nullable(),
});

/** One other protocol of a grid against its main grid: agreement and sampling recovery, as counts. */
export const OverviewProtocol = z.object({
  protocol: z.string(),
  configs: z.array(z.string()),
  differsIn: z.array(z.string()),
  agreement: z
    .object({
      budgets: z.array(z.string()),
      nCommon: z.number().int(),
      main: OverviewProtocolSide,
      variant: OverviewProtocolSide,
      confused: OverviewMembership,
      terminalRegression: OverviewMembership,
      textOverwritten: OverviewMembership.nullable(),
    })
    .nullable(),
  agreementNote: z.string().nullable(),
  recovery: z.object({
    terminalConfig: z.string().nullable(),
    alternatives: z.array(z.string()),
    n: z.number().int(),
    regressions: z.number().int(),
    recovered: z.number().int(),
    recoveryRate: z.number().nullable(),
    note: z.string().nullable(),
  }),
});
export type OverviewProtocol = z.infer<typeof OverviewProtocol>;

export const OverviewGrid = z.object({
  model: z.string(),
  split: z.string(),
  kind: z.enum(['mcqa', 'open']),
  /** null for open-ended grids, whose figures are in `open`. */
  metrics: OverviewMetrics.nullable(),
  /** An open-ended grid's figures (docs/metrics.md §4); null for MCQA grids. */
  open: OverviewOpen.nullable(),
  transitions: z.array(OverviewTransition),
  wins: z.object({ configs: z.array(z.string()), n: z.number().int(), wins: z.array(z.array(z.number().int())) }),
  classes: z.record(z.string(), z.number().int()),
  heatmap: OverviewHeatmap,
  iso: z.array(OverviewIsoGroup),
  /** Visual configs a cascade can climb (the budget ladder without text), cheapest first. */
  cascadeBudgets: z.array(z.string()),
  cascade: OverviewCascade.nullable(),
  /** Why there is no cascade (no confidence/margin recorded, fewer than two budgets, …). */
  cascadeNote: z.string().nullable(),
  /** The grid's other protocols against its main grid (docs/metrics.md §6); [] when it has one. */
  protocols: z.array(OverviewProtocol),
});
export type OverviewGrid = z.infer<typeof OverviewGrid>;

export const MatchedGridTable = z.object({
  configs: z.array(z.string()),
  source: z.enum(['setting', 'proposed']),
  /** Models the grid leaves out across the project, with the reason (e.g. context ceiling). */
  leftOut: z.array(z.object({ model: z.string(), reason: z.string() })),
  splits: z.array(
    z.object({
      split: z.string(),
      nItems: z.number().int(),
      perModel: z.array(z.object({ model: z.string(), metrics: OverviewMetrics })),
      leftOut: z.array(z.object({ model: z.string(), missing: z.array(z.string()) })),
    }),
  ),
});
export type MatchedGridTable = z.infer<typeof MatchedGridTable>;

export const Overview = z.object({
  /** The main protocol ('' = untagged), and whether the project's setting chose it. */
  mainProtocol: z.object({ name: z.string(), source: z.enum(['setting', 'default']), available: z.array(z.string()) }),
  grids: z.array(OverviewGrid),
  matchedGrid: MatchedGridTable,
});
export type Overview = z.infer<typeof Overview>;

export const CascadeRequest = z.object({
  model: z.string().min(1),
  split: z.string().min(1),
  budgets: z.array(z.string().min(1)).min(2),
  reference: z.string().min(1),
  seed: z.number().int().optional(),
});

/** One point of a cascade: its τ (null = +∞, every item runs to the last budget). */
export const CascadeItemsRequest = CascadeRequest.omit({ seed: true }).extend({ tau: z.number().nullable() });

export const ITEM_FLAGS = ['visuallyConfused', 'textOverwritten', 'terminalRegression'] as const;

/**
 * A mark of the overview that stands for a set of a grid's complete items (docs/metrics.md §2–3);
 * overview:items answers with them. Transitions and classes open the queue by its own filters.
 */
export const OverviewMark = z.discriminatedUnion('kind', [
  /** Correct under `config`. */
  z.object({ kind: z.literal('correct'), config: z.string().min(1) }),
  /** wins[a][b]: correct under a, wrong under b. */
  z.object({ kind: z.literal('wins'), a: z.string().min(1), b: z.string().min(1) }),
  /** Oracle headroom: correct under some config, wrong under the best fixed one. */
  z.object({ kind: z.literal('headroom') }),
  z.object({ kind: z.literal('flag'), flag: z.enum(ITEM_FLAGS) }),
  /** One heatmap pattern row. */
  z.object({ kind: z.literal('pattern'), pattern: z.string().min(1) }),
  /** The heatmap's rest row: every pattern not in `shown`. */
  z.object({ kind: z.literal('otherPatterns'), shown: z.array(z.string()).max(HEATMAP_PATTERN_ROWS) }),
  /** Open-ended grids: complete items whose score at `config` falls in bin `bin` (scoreBin). */
  z.object({
    kind: z.literal('scoreBin'),
    config: z.string().min(1),
    bin: z
      .number()
      .int()
      .min(0)
      .max(SCORE_BINS - 1),
  }),
  /** Items whose membership of a set changes between the main grid and `protocol` (docs/metrics.md §6). */
  z.object({
    kind: z.literal('protocolMoved'),
    protocol: z.string(),
    set: z.enum(MEMBERSHIP_SETS),
    side: z.enum(['onlyMain', 'onlyVariant', 'changed']),
  }),
  /** The main grid's terminal regressions that `protocol` (null: any other protocol) answers correctly. */
  z.object({ kind: z.literal('recovered'), protocol: z.string().nullable() }),
]);
export type OverviewMark = z.infer<typeof OverviewMark>;
export const OverviewItemsRequest = z.object({ model: z.string().min(1), split: z.string().min(1), mark: OverviewMark });

// ---------------------------------------------------------------- saved views

export const QUEUE_COLUMNS = ['item', 'model', 'split', 'task', 'pattern', 'class', 'flags', 'status'] as const;
export type QueueColumn = (typeof QUEUE_COLUMNS)[number];

/** What a saved view restores: the queue's filter, sort and visible columns. */
export const SavedViewValue = z.object({
  filter: z.object({
    preset: z.enum(['default', 'all']),
    model: z.string().nullable(),
    split: z.string().nullable(),
    taskType: z.string().nullable(),
    trajectoryClass: z.string().nullable(),
    flags: z.array(z.enum(ITEM_FLAGS)),
    transition: z.string().nullable(),
    transitionKind: z.enum(['harmed', 'rescued']).nullable().optional(),
    itemSet: z
      .object({ label: z.string(), ids: z.array(z.string()) })
      .nullable()
      .optional(),
    status: z.enum(['todo', 'in_progress', 'done', 'skipped', 'needs_review']).nullable(),
    annotator: z.string().nullable(),
    hasVideo: z.boolean().nullable(),
    search: z.string(),
  }),
  sort: z.object({ key: z.enum(['default', 'sampleId', 'model', 'split', 'taskType', 'status', 'class']), desc: z.boolean() }),
  columns: z.array(z.enum(QUEUE_COLUMNS)),
});
export type SavedViewValue = z.infer<typeof SavedViewValue>;
/** The queue's filter and sort as they cross the API (queue:page) — the same shape a saved view stores. */
export const QueueFilterSchema = SavedViewValue.shape.filter;
export const QueueSortSchema = SavedViewValue.shape.sort;

export const SavedViewDto = z.object({ id: z.number().int(), name: z.string(), value: SavedViewValue, updatedAt: z.string() });
export type SavedViewDto = z.infer<typeof SavedViewDto>;
export const ViewName = z.string().trim().min(1).max(200);
