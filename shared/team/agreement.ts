/**
 * Agreement between annotators per (model, split) (docs/metrics.md §9), from their current
 * annotation states. An annotator "labelled" an item when they set a primary pathway or at
 * least one pathway tag; items nobody labelled do not count. Adjudications are not
 * annotators' labels and never enter these figures.
 */
import { cohenKappa, fleissKappa, tagKappas, type CohenResult, type FleissResult } from '../engine/kappa';

export interface LabelledState {
  model: string;
  split: string;
  sampleId: string;
  annotator: string;
  primaryPathway: string | null;
  pathways: readonly string[];
}

export interface PairAgreement {
  a: string;
  b: string;
  /** Items both labelled (either a primary or a tag). */
  nBoth: number;
  /** Raw agreement and κ on primary_pathway over items where both set one (n = those items). */
  primary: CohenResult;
  /** κ per pathway tag (present/absent) over the items both labelled. */
  pathways: Record<string, CohenResult>;
}

export interface GroupAgreement {
  model: string;
  split: string;
  annotators: string[];
  /** Items labelled by at least one annotator. */
  nItems: number;
  /** Every pair of annotators (one pair when there are two). */
  pairs: PairAgreement[];
  /** Fleiss' κ on primary_pathway over items all annotators gave one; null with fewer than 3 annotators. */
  fleiss: FleissResult | null;
}

export interface AgreementReport {
  groups: GroupAgreement[];
}

const isLabelled = (s: LabelledState): boolean => s.primaryPathway !== null || s.pathways.length > 0;
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function agreementReport(states: readonly LabelledState[]): AgreementReport {
  const groups = new Map<string, { model: string; split: string; byItem: Map<string, Map<string, LabelledState>> }>();
  for (const s of states) {
    if (!isLabelled(s)) continue;
    const gk = JSON.stringify([s.model, s.split]);
    let g = groups.get(gk);
    if (!g) groups.set(gk, (g = { model: s.model, split: s.split, byItem: new Map() }));
    let item = g.byItem.get(s.sampleId);
    if (!item) g.byItem.set(s.sampleId, (item = new Map()));
    item.set(s.annotator, s);
  }
  const out: GroupAgreement[] = [];
  for (const g of [...groups.values()].sort((x, y) => cmp(x.model, y.model) || cmp(x.split, y.split))) {
    const items = [...g.byItem.keys()].sort(cmp);
    const annotators = [...new Set([...g.byItem.values()].flatMap((m) => [...m.keys()]))].sort(cmp);
    const pairs: PairAgreement[] = [];
    for (let i = 0; i < annotators.length; i++) {
      for (let j = i + 1; j < annotators.length; j++) {
        const a = annotators[i]!;
        const b = annotators[j]!;
        const sa = items.map((id) => g.byItem.get(id)?.get(a) ?? null);
        const sb = items.map((id) => g.byItem.get(id)?.get(b) ?? null);
        const nBoth = sa.filter((x, k) => x !== null && sb[k] !== null).length;
        pairs.push({
          a,
          b,
          nBoth,
          primary: cohenKappa(
            sa.map((x) => x?.primaryPathway ?? null),
            sb.map((x) => x?.primaryPathway ?? null),
          ),
          pathways: tagKappas(
            sa.map((x) => x?.pathways ?? null),
            sb.map((x) => x?.pathways ?? null),
          ),
        });
      }
    }
    let fleiss: FleissResult | null = null;
    if (annotators.length >= 3) {
      const rows: string[][] = [];
      for (const id of items) {
        const m = g.byItem.get(id)!;
        const ratings = annotators.map((a) => m.get(a)?.primaryPathway ?? null);
        if (ratings.every((r): r is string => r !== null)) rows.push(ratings);
      }
      fleiss = fleissKappa(rows);
    }
    out.push({ model: g.model, split: g.split, annotators, nItems: items.length, pairs, fleiss });
  }
  return { groups: out };
}
