/**
 * Protocols in the release export (docs/release-format.md "labels/aggregated/protocols.json"):
 * every aggregated number, derived.csv row and wide CSV is the main protocol's grid alone
 * (docs/metrics.md §6), while per_item.csv keeps every cell; protocols.json holds the
 * comparisons of the other protocols with it, and the main grid's iso-compute groups.
 */
import type { ConfigSpec, ResponseMatrix } from '../../shared/domain/types';
import { isoComputeGroups } from '../../shared/engine/iso-compute';
import { compareProtocols, mainConfigs, type MembershipChange, type ProtocolSide, type SamplingRecovery } from '../../shared/engine/protocols';
import { roundHalfEven4 } from '../../shared/release/py-round';
import { JsonFloat, type JsonValue } from './format';
import type { ReleaseGrid } from './release-data';

/**
 * The grid restricted to the main protocol's columns, its rows the items with a cell in one of
 * them; null when the main protocol has no grid there. The grid itself when nothing is dropped.
 */
export function mainGridOf(g: ReleaseGrid, specs: ReadonlyMap<string, ConfigSpec>, main: string): ReleaseGrid | null {
  const own = g.columns.map((c) => {
    const s = specs.get(c.config);
    if (!s) throw new Error(`config "${c.config}" of ${g.model} / ${g.split} is not among the project's configs`);
    return s;
  });
  const keep = new Set(mainConfigs(own, main).map((s) => s.key));
  if (keep.size === 0) return null;
  if (keep.size === g.columns.length) return g;
  const columns = g.columns.filter((c) => keep.has(c.config));
  const rows: number[] = [];
  for (let r = 0; r < g.sampleIds.length; r++) if (columns.some((c) => c.at[r]! >= 0)) rows.push(r);
  return {
    model: g.model,
    split: g.split,
    sampleIds: rows.map((r) => g.sampleIds[r]!),
    rowItems: Int32Array.from(rows, (r) => g.rowItems[r]!),
    columns: columns.map((c) => ({ ...c, at: Int32Array.from(rows, (r) => c.at[r]!) })),
  };
}

/**
 * A rate as the release prints its rates: a percentage rounded to four decimals, as Python
 * rounds; null where it is undefined (no text-only config: null; no item: 0 / 0).
 */
function pct(x: number | null): JsonValue {
  const v = x ?? Number.NaN;
  return Number.isFinite(v) ? new JsonFloat(roundHalfEven4(100 * v)) : null;
}

function sideJson(s: ProtocolSide): JsonValue {
  return {
    protocol: s.protocol,
    configs: s.configs,
    n: s.n,
    n_excluded: s.nExcluded,
    terminal_config: s.terminalConfig,
    visual_confusion_rate: pct(s.visualConfusionRate),
    terminal_regression_rate: pct(s.terminalRegressionRate),
    overwrite_rate: pct(s.textOverwriteRate),
    visually_confused: s.counts.visuallyConfused,
    terminal_regressions: s.counts.terminalRegressions,
    text_overwritten: s.counts.textOverwritten,
  };
}

function membershipJson(x: MembershipChange | null): JsonValue {
  if (x === null) return null;
  return { both: x.both, only_main: x.onlyMain, only_variant: x.onlyVariant, jaccard: x.jaccard === null ? null : new JsonFloat(x.jaccard) };
}

function recoveryJson(r: SamplingRecovery | null): JsonValue {
  if (r === null) return null;
  return {
    terminal_config: r.terminalConfig,
    alternatives: r.alternatives,
    n: r.n,
    regressions: r.regressions,
    recovered: r.recovered,
    recovery_rate: pct(r.recoveryRate),
    recovered_items: r.recoveredItems,
    note: r.note,
  };
}

/** protocols.json: one entry per (model, split) of the main protocol, in (model, split) order. */
export function protocolsJson(main: string, mainMatrices: readonly ResponseMatrix[], allMatrices: ReadonlyMap<string, ResponseMatrix>): JsonValue {
  const grids: JsonValue[] = [];
  for (const m of mainMatrices) {
    if (m.kind !== 'mcqa') continue;
    const all = allMatrices.get(`${m.model}\u0000${m.split}`);
    const report = all ? compareProtocols(all, main) : null;
    const iso = isoComputeGroups(m);
    grids.push({
      model: m.model,
      split: m.split,
      main_configs: m.configs.map((c) => c.key),
      iso_compute: iso.groups.map((g) => ({
        configs: g.configs,
        compute: g.compute,
        best_config: g.bestConfig,
        best_accuracy: pct(g.bestAccuracy),
        oracle: pct(g.oracleAccuracy),
        headroom: new JsonFloat(roundHalfEven4(g.oracleHeadroomPts)),
        pairs: g.pairs.map((p) => ({ a: p.a, b: p.b, only_a: p.onlyA, only_b: p.onlyB, both: p.both, neither: p.neither })),
      })),
      protocols: (report?.variants ?? []).map((v) => ({
        protocol: v.protocol,
        configs: v.configs,
        differs_in: v.differsIn,
        agreement: v.agreement
          ? {
              budgets: v.agreement.budgets,
              main: sideJson(v.agreement.main),
              variant: sideJson(v.agreement.variant),
              n_common: v.agreement.nCommon,
              confused: membershipJson(v.agreement.confused),
              terminal_regression: membershipJson(v.agreement.terminalRegression),
              text_overwritten: membershipJson(v.agreement.textOverwritten),
            }
          : null,
        agreement_note: v.agreementNote,
        sampling_recovery: recoveryJson(v.recovery),
      })),
      any_recovery: recoveryJson(report?.anyRecovery ?? null),
    });
  }
  return { main_protocol: main, grids };
}
