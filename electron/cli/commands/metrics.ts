import { openProject, type GridInfo, type Project } from '../../store/index';
import { proposeMatchedGrid } from '../../../shared/engine/matched-grid';
import { mcqaMetrics, transitions, type McqaMetrics, type Transition } from '../../../shared/engine/mcqa';
import { openMetrics, type OpenMetrics } from '../../../shared/engine/open-ended';
import { isoComputeGroups, type IsoGroup } from '../../../shared/engine/iso-compute';
import { compareProtocols, protocolLabel, protocolName, type MembershipChange, type ProtocolComparison, type SamplingRecovery } from '../../../shared/engine/protocols';
import { continuousTrajectories } from '../../../shared/engine/continuous';
import { listOption, parseCli, progress, requireOption, table, toJson } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook metrics --project P [--matched-grid c1,c2,…] [--main-protocol M] [--json]

Per (model, split) of the main protocol's grid: accuracy per config, best fixed config, oracle
headroom, visual confusion, text overwrite, terminal regressions, every transition with its
rescued and harmed items and the exact McNemar p, and the iso-compute groups (docs/metrics.md
§2, §4, §6). Then each other protocol (a config variant such as @random, @raw, @subs) against
the main grid: protocol agreement (the items that enter or leave the confused, terminal-regression
and text-overwrite sets, their Jaccard, the rates side by side) and sampling recovery (the main
grid's terminal regressions the variant answers correctly, listed). Then the matched grid across
models: from --matched-grid, else the project's matchedGrid setting, else Flipbook's proposal
(naming the models it leaves out and why). For open-ended grids: the mean score, oracle gap,
regression rate, terminal regressions and each transition's improved / regressed items (§4).
Each grid says which score it holds.

Options:
  --project P          the .flipbook project file (opened read-only)
  --matched-grid L     comma-separated config keys of the matched grid
  --main-protocol M    the main protocol for this report: a variant tag (random or @random), or
                       "untagged" for the configs without one; default: the project's setting
                       (flipbook import --main-protocol), else untagged
  --json               print JSON instead of tables

Exit codes: 0 ok, 1 failure, 2 bad usage.`;

interface MatchedGridChoice {
  configs: string[];
  source: 'flag' | 'setting' | 'proposed';
  models: string[];
  leftOut: { model: string; reason: string }[];
}

export interface GridReport {
  model: string;
  split: string;
  kind: 'mcqa' | 'open';
  /** Which score the grid holds (docs/metrics.md §1). */
  score: string;
  metrics: McqaMetrics | OpenMetrics;
  transitions: Transition[];
  /** Open-ended grids: terminal regressions and classes of docs/metrics.md §4 (with the same ε). */
  continuous?: { terminalConfig: string | null; terminalRegressionRate: number; terminalRegressions: number; regressed: number; classes: Record<string, number> };
  matchedGrid: { status: 'complete' | 'incomplete_matched_grid'; missing: string[]; metrics: McqaMetrics | OpenMetrics | null; transitions: Transition[] };
  /** Iso-compute groups of the main grid (docs/metrics.md §6); [] for open-ended grids. */
  isoCompute: IsoGroup[];
  /** Every other protocol of this (model, split) against the main grid. */
  protocols: ProtocolComparison[];
  /** The main grid's terminal regressions correct under at least one other protocol at the terminal's budget. */
  anyRecovery: SamplingRecovery | null;
}

export interface ProtocolsChoice {
  /** '' = the untagged configs. */
  main: string;
  source: 'flag' | 'setting' | 'default';
  /** Every protocol of the project. */
  available: string[];
}

function chooseMatchedGrid(project: Project, grids: GridInfo[], flag: string[] | undefined): MatchedGridChoice {
  const modelsWith = (keys: string[]): string[] => [...new Set(grids.filter((g) => keys.every((k) => g.configs.some((c) => c.key === k))).map((g) => g.model))].sort();
  if (flag) return { configs: flag, source: 'flag', models: modelsWith(flag), leftOut: [] };
  const setting = project.getSetting<unknown>('matchedGrid');
  if (Array.isArray(setting) && setting.every((k): k is string => typeof k === 'string') && setting.length > 0) {
    return { configs: setting, source: 'setting', models: modelsWith(setting), leftOut: [] };
  }
  const proposal = proposeMatchedGrid(grids.filter((g) => g.kind === 'mcqa'));
  return { configs: proposal.configs, source: 'proposed', models: proposal.models, leftOut: proposal.leftOut };
}

/** The main protocol of a report: the flag, else the project's (setting or default); refused when no grid has it. */
export function chooseProtocol(project: Project, flag?: string): ProtocolsChoice {
  const available = [...new Set(project.listGrids({ allProtocols: true }).flatMap((g) => g.protocols))].sort();
  const own = project.mainProtocol();
  if (flag === undefined) return { main: own.name, source: own.source, available };
  const main = protocolName(flag);
  if (!available.includes(main)) {
    throw new UsageError(`--main-protocol ${flag}: the project has no such protocol (it has ${available.map(protocolLabel).join(', ') || 'none'})`);
  }
  return { main, source: 'flag', available };
}

export function metricsReport(
  project: Project,
  matchedFlag?: string[],
  protocolFlag?: string,
): { protocols: ProtocolsChoice; matchedGrid: MatchedGridChoice; grids: GridReport[] } {
  const protocols = chooseProtocol(project, protocolFlag);
  const load = { protocol: protocols.main };
  const grids = project.listGrids(load);
  const matched = chooseMatchedGrid(project, grids, matchedFlag);
  const reports: GridReport[] = [];
  for (const g of grids) {
    progress(`metrics: ${g.model} / ${g.split}`);
    const m = project.loadMatrix(g.model, g.split, load);
    const keys = new Set(g.configs.map((c) => c.key));
    const missing = matched.configs.filter((k) => !keys.has(k));
    const complete = matched.configs.length > 0 && missing.length === 0;
    if (g.kind === 'open') {
      const om = openMetrics(m);
      const ct = continuousTrajectories(m, { eps: om.eps });
      const N = ct.tallies.complete;
      reports.push({
        model: g.model,
        split: g.split,
        kind: 'open',
        score: g.score,
        metrics: om,
        transitions: [],
        continuous: {
          terminalConfig: ct.terminalConfig,
          terminalRegressionRate: N > 0 ? ct.tallies.terminalRegressions / N : 0,
          terminalRegressions: ct.tallies.terminalRegressions,
          regressed: ct.tallies.regressed,
          classes: ct.tallies.classes,
        },
        matchedGrid: { status: complete ? 'complete' : 'incomplete_matched_grid', missing, metrics: complete ? openMetrics(m, matched.configs) : null, transitions: [] },
        isoCompute: [],
        protocols: [],
        anyRecovery: null,
      });
      continue;
    }
    // The other protocols need the grid's every config; a grid of one protocol has none to compare.
    const cmp = g.protocols.length > 1 ? compareProtocols(project.loadMatrix(g.model, g.split, { allProtocols: true }), protocols.main) : null;
    reports.push({
      model: g.model,
      split: g.split,
      kind: 'mcqa',
      score: g.score,
      metrics: mcqaMetrics(m),
      transitions: transitions(m),
      matchedGrid: {
        status: complete ? 'complete' : 'incomplete_matched_grid',
        missing,
        metrics: complete ? mcqaMetrics(m, matched.configs) : null,
        transitions: complete ? transitions(m, matched.configs) : [],
      },
      isoCompute: isoComputeGroups(m).groups,
      protocols: cmp?.variants ?? [],
      anyRecovery: cmp?.anyRecovery ?? null,
    });
  }
  return { protocols, matchedGrid: matched, grids: reports };
}

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : (100 * x).toFixed(2));
const pval = (p: number): string => (p < 1e-4 ? p.toExponential(1) : p.toFixed(4));

const jac = (x: MembershipChange | null): string => (x === null ? '—' : x.jaccard === null ? 'n/a' : x.jaccard.toFixed(3));
const moved = (x: MembershipChange | null): string => (x === null ? '—' : `−${x.onlyMain.length} +${x.onlyVariant.length}`);
const rate = (r: SamplingRecovery): string =>
  r.recoveryRate === null ? `— (${r.note ?? 'no rate'})` : `${r.recovered}/${r.regressions} = ${pct(r.recoveryRate)}% at ${r.alternatives.join(', ')}`;

/** The protocol lines of one grid: agreement and recovery per variant, then the iso-compute groups. */
function printProtocols(g: GridReport, out: string[]): void {
  if (g.isoCompute.length > 0) {
    out.push(
      table(
        ['iso-compute group', 'best', 'oracle %', 'headroom pts'],
        g.isoCompute.map((x) => [x.configs.join(' ~ '), x.bestConfig, pct(x.oracleAccuracy), x.oracleHeadroomPts.toFixed(2)]),
      ),
    );
  }
  if (g.protocols.length === 0) return;
  const rows = g.protocols.map((p) => {
    const a = p.agreement;
    if (!a) return [protocolLabel(p.protocol), p.configs.join(' '), '—', '—', '—', '—', '—', '—', '—', rate(p.recovery)];
    const two = (x: number, y: number) => `${pct(x)} / ${pct(y)}`;
    return [
      protocolLabel(p.protocol),
      a.budgets.join(' '),
      String(a.nCommon),
      two(a.main.visualConfusionRate, a.variant.visualConfusionRate),
      `${moved(a.confused)} J ${jac(a.confused)}`,
      two(a.main.terminalRegressionRate, a.variant.terminalRegressionRate),
      `${moved(a.terminalRegression)} J ${jac(a.terminalRegression)}`,
      a.main.textOverwriteRate === null || a.variant.textOverwriteRate === null ? '—' : two(a.main.textOverwriteRate, a.variant.textOverwriteRate),
      `${moved(a.textOverwritten)} J ${jac(a.textOverwritten)}`,
      rate(p.recovery),
    ];
  });
  out.push(
    table(
      [
        'protocol',
        'budgets compared',
        'n',
        'confusion % main/variant',
        'confused moved',
        'terminal reg. %',
        'terminal moved',
        'overwrite %',
        'overwrite moved',
        'sampling recovery',
      ],
      rows,
    ),
  );
  if (g.anyRecovery && g.protocols.length > 1) out.push(`recovered by any protocol: ${rate(g.anyRecovery)}`);
}

function printReport(r: ReturnType<typeof metricsReport>): string {
  const out: string[] = [];
  const pr = r.protocols;
  out.push(`main protocol: ${protocolLabel(pr.main)} (${pr.source}); protocols: ${pr.available.map(protocolLabel).join(', ') || '—'}`);
  for (const g of r.grids) {
    out.push('', `== ${g.model} / ${g.split} (${g.kind}, ${g.metrics.n} items complete, ${g.metrics.nExcluded} excluded)`, `score: ${g.score}`);
    if (g.kind === 'mcqa') {
      const m = g.metrics as McqaMetrics;
      out.push(table(['config', ...m.configs], [['accuracy %', ...m.configs.map((c) => pct(m.accuracy[c]))]]));
      out.push(
        `best fixed ${m.bestFixed ?? '—'}  oracle ${pct(m.oracleAccuracy)}%  headroom ${m.oracleHeadroomPts.toFixed(2)} pts  ` +
          `visual confusion ${pct(m.visualConfusionRate)}%  text overwrite ${pct(m.textOverwriteRate)}% (${pct(m.textOverwriteRateOfTextCorrect)}% of text-correct)  ` +
          `terminal regressions ${pct(m.terminalRegressionRate)}% (${m.terminalConfig ?? '—'})`,
      );
      if (g.transitions.length) {
        out.push(
          table(
            ['transition', 'rescued', 'harmed', 'net pts', 'churn %', 'McNemar p'],
            g.transitions.map((t) => [`${t.from} → ${t.to}`, t.rescued, t.harmed, t.netPts.toFixed(2), pct(t.churnRate), pval(t.mcnemarP)]),
          ),
        );
      }
      printProtocols(g, out);
    } else {
      const m = g.metrics as OpenMetrics;
      out.push(table(['config', ...m.configs], [['mean score %', ...m.configs.map((c) => pct(m.mean[c]))]]));
      const c = g.continuous;
      out.push(
        `best fixed ${m.bestFixed ?? '—'}  oracle ${pct(m.oracleMean)}%  gap ${m.oracleGapPts.toFixed(2)} pts  regression rate ${pct(m.regressionRate)}% (ε ${m.eps})` +
          (c ? `  terminal regressions ${pct(c.terminalRegressionRate)}% (${c.terminalRegressions} items, ${c.terminalConfig ?? '—'})` : ''),
      );
      if (m.transitions.length) {
        out.push(
          table(
            ['transition', 'improved', 'regressed', 'mean Δ pts'],
            m.transitions.map((t) => [`${t.from} → ${t.to}`, t.improved, t.regressed, t.netPts.toFixed(2)]),
          ),
        );
      }
    }
  }
  const mg = r.matchedGrid;
  out.push('', `== matched grid (${mg.source}): ${mg.configs.join(', ') || '—'}`);
  for (const l of mg.leftOut) out.push(`left out: ${l.model} — ${l.reason}`);
  out.push(
    table(
      ['model', 'split', 'status', 'n', 'best fixed', 'oracle %', 'headroom pts', 'confusion %', 'overwrite %'],
      r.grids.map((g) => {
        const m = g.matchedGrid.metrics;
        if (!m || g.kind !== 'mcqa') return [g.model, g.split, g.matchedGrid.status, m ? m.n : '—', '—', '—', '—', '—', '—'];
        const q = m as McqaMetrics;
        return [g.model, g.split, 'complete', q.n, q.bestFixed ?? '—', pct(q.oracleAccuracy), q.oracleHeadroomPts.toFixed(2), pct(q.visualConfusionRate), pct(q.textOverwriteRate)];
      }),
    ),
  );
  return out.join('\n').replace(/^\n/, '');
}

export const metricsCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, {
      project: { type: 'string' },
      'matched-grid': { type: 'string' },
      'main-protocol': { type: 'string' },
      json: { type: 'boolean' },
    });
    const projectPath = requireOption('project', values.project);
    const flag = listOption('matched-grid', values['matched-grid']);
    const project = openProject(projectPath, { readOnly: true });
    try {
      const report = metricsReport(project, flag, values['main-protocol']);
      console.log(values.json ? toJson(report) : printReport(report));
    } finally {
      project.close();
    }
    return 0;
  },
};
