/**
 * Contract operations of the team workflow: codebook editing, annotators side
 * by side, agreement, conflicts, adjudication, merge. Kept in their own table so the shared
 * contract.ts only spreads it in; schemas follow the same conventions as contract.ts.
 */
import * as z from 'zod';
import { Empty, op } from './op';

const Ref = z.object({ model: z.string().min(1), split: z.string().min(1), sampleId: z.string().min(1) });
const Name = z.string().trim().min(1).max(100);

export const TeamPathway = z.object({
  id: z.string(),
  label: z.string(),
  description: z.string(),
  applies_to: z.array(z.string()),
  shortcut: z.string().nullable(),
});
export const TeamCodebook = z.object({ id: z.string(), version: z.number().int(), pathways: z.array(TeamPathway) });

export const Cohen = z.object({ n: z.number().int(), rawAgreement: z.number().nullable(), kappa: z.number().nullable() });
export type Cohen = z.infer<typeof Cohen>;
export const Fleiss = z.object({
  nItems: z.number().int(),
  nRaters: z.number().int(),
  observedAgreement: z.number().nullable(),
  kappa: z.number().nullable(),
});
export const PairAgreement = z.object({
  a: z.string(),
  b: z.string(),
  nBoth: z.number().int(),
  primary: Cohen,
  pathways: z.record(z.string(), Cohen),
});
export const GroupAgreement = z.object({
  model: z.string(),
  split: z.string(),
  annotators: z.array(z.string()),
  nItems: z.number().int(),
  pairs: z.array(PairAgreement),
  fleiss: Fleiss.nullable(),
});
export type GroupAgreement = z.infer<typeof GroupAgreement>;
export const AgreementReport = z.object({ groups: z.array(GroupAgreement) });
export type AgreementReport = z.infer<typeof AgreementReport>;

export const Resolution = Ref.extend({
  adjudicator: z.string(),
  primary: z.string().nullable(),
  pathways: z.array(z.string()),
  note: z.string(),
  at: z.string(),
  uuid: z.string(),
});
export type Resolution = z.infer<typeof Resolution>;

export const Conflict = Ref.extend({ primaries: z.record(z.string(), z.string()), resolution: Resolution.nullable() });
export type Conflict = z.infer<typeof Conflict>;

/** One annotator's labels of an item, as shown side by side. */
export const TeamLabel = z.object({
  annotator: z.string(),
  status: z.string(),
  primaryPathway: z.string().nullable(),
  pathways: z.array(z.string()),
  transition: z.string().nullable(),
  notes: z.string(),
  confidence: z.number().nullable(),
  spans: z.number().int(),
  codebookVersion: z.number().int().nullable(),
  updatedAt: z.string(),
});
export type TeamLabel = z.infer<typeof TeamLabel>;

export const MergeReport = z.object({
  path: z.string(),
  source: z.enum(['events', 'rows']),
  eventsInBundle: z.number().int(),
  added: z.number().int(),
  skipped: z.number().int(),
  keysRecomputed: z.number().int(),
  annotators: z.array(z.string()),
  openConflicts: z.number().int(),
  codebook: z.object({ id: z.string(), version: z.number().int(), matchesProject: z.boolean() }).nullable(),
});
export type MergeReport = z.infer<typeof MergeReport>;

export const teamOperations = {
  'codebook:set': op(
    z.object({ codebook: TeamCodebook }),
    TeamCodebook,
    'Save the codebook (ids unique, keys unique and free); a changed definition bumps the version. Returns what is now current.',
    { writes: 'inline', changes: 'project' },
  ),
  'team:item': op(
    Ref,
    z.object({ labels: z.array(TeamLabel), resolution: Resolution.nullable(), codebookVersion: z.number().int().nullable() }),
    "Every annotator's labels of an item, its resolution, and the current codebook version.",
  ),
  'team:agreement': op(Empty, AgreementReport, 'Agreement per (model, split): Cohen κ per pair (primary, per pathway), Fleiss κ for 3+ (docs/metrics.md §9).'),
  'team:conflicts': op(Empty, z.object({ conflicts: z.array(Conflict) }), 'Items whose annotators disagree on the primary pathway (resolved ones carry their resolution).'),
  'team:adjudicate': op(
    Ref.extend({ adjudicator: Name, primary: z.string().min(1).nullable(), pathways: z.array(z.string().min(1)), note: z.string() }),
    Resolution,
    "Resolve an item: an event of the adjudicator; nobody's own labels change.",
    { writes: 'inline', changes: 'annotations' },
  ),
  'team:merge': op(
    z.object({ path: z.string().min(1), jobId: z.string().min(1).max(100).optional() }),
    MergeReport,
    "Merge another annotator's exported release or annotations/ folder (idempotent).",
    { writes: 'job' },
  ),
} as const;

export const TEAM_OP_NAMES = ['codebook:set', 'team:item', 'team:agreement', 'team:conflicts', 'team:adjudicate', 'team:merge'] as const;
