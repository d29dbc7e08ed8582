import { openProject, type GridInfo, type Project } from '../../store/index';
import { proposeMatchedGrid } from '../../../shared/engine/matched-grid';
import { mcqaMetrics, transitions, type McqaMetrics, type Transition } from '../../../shared/engine/mcqa';
import { openMetrics, type OpenMetrics } from '../../../shared/engine/open-ended';
import { listOption, parseCli, progress, requireOption, table, toJson } from '../args';
import type { CliCommand } from '../command';

const HELP = `Usage: flipbook metrics --project P [--matched-grid c1,c2,…] [--json]

Per (model, split): accuracy per config, best fixed config, oracle headroom, visual confusion,
text overwrite, terminal regressions, and every transition with its rescued and harmed items
and the exact McNemar p (docs/metrics.md §2, §4). Then the matched grid across models: from
--matched-grid, else the project's matchedGrid setting, else Flipbook's proposal (naming the
models it leaves out and why).

Options:
  --project P          the .flipbook project file (opened read-only)
  --matched-grid L     comma-separated config keys of the matched grid
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
  matchedGrid: { status: 'complete' | 'incomplete_matched_grid'; missing: string[]; metrics: McqaMetrics | OpenMetrics | null; transitions: Transition[] };
}

function chooseMatchedGrid(project: Project, grids: GridInfo[], flag: string[] | undefined): MatchedGridChoice {
  const modelsWith = (keys: string[]): string[] =>
    [...new Set(grids.filter((g) => keys.every((k) => g.configs.some((c) => c.key === k))).map((g) => g.model))].sort();
  if (flag) return { configs: flag, source: 'flag', models: modelsWith(flag), leftOut: [] };
  const setting = project.getSetting<unknown>('matchedGrid');
  if (Array.isArray(setting) && setting.every((k): k is string => typeof k === 'string') && setting.length > 0) {
    return { configs: setting, source: 'setting', models: modelsWith(setting), leftOut: [] };
  }
  const proposal = proposeMatchedGrid(grids.filter((g) => g.kind === 'mcqa'));
  return { configs: proposal.configs, source: 'proposed', models: proposal.models, leftOut: proposal.leftOut };
}

export function metricsReport(project: Project, matchedFlag?: string[]): { matchedGrid: MatchedGridChoice; grids: GridReport[] } {
  const grids = project.listGrids();
  const matched = chooseMatchedGrid(project, grids, matchedFlag);
  const reports: GridReport[] = [];
  for (const g of grids) {
    progress(`metrics: ${g.model} / ${g.split}`);
    const m = project.loadMatrix(g.model, g.split);
    const keys = new Set(g.configs.map((c) => c.key));
    const missing = matched.configs.filter((k) => !keys.has(k));
    const complete = matched.configs.length > 0 && missing.length === 0;
    if (g.kind === 'open') {
      reports.push({
        model: g.model,
        split: g.split,
        kind: 'open',
        score: g.score,
        metrics: openMetrics(m),
        transitions: [],
        matchedGrid: { status: complete ? 'complete' : 'incomplete_matched_grid', missing, metrics: complete ? openMetrics(m, matched.configs) : null, transitions: [] },
      });
      continue;
    }
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
    });
  }
  return { matchedGrid: matched, grids: reports };
}

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : (100 * x).toFixed(2));
const pval = (p: number): string => (p < 1e-4 ? p.toExponential(1) : p.toFixed(4));

function printReport(r: ReturnType<typeof metricsReport>): string {
  const out: string[] = [];
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
    } else {
      const m = g.metrics as OpenMetrics;
      out.push(table(['config', ...m.configs], [['mean score %', ...m.configs.map((c) => pct(m.mean[c]))]]));
      out.push(`best fixed ${m.bestFixed ?? '—'}  oracle ${pct(m.oracleMean)}%  gap ${m.oracleGapPts.toFixed(2)} pts  regression rate ${pct(m.regressionRate)}% (ε ${m.eps})`);
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
    const { values } = parseCli(argv, { project: { type: 'string' }, 'matched-grid': { type: 'string' }, json: { type: 'boolean' } });
    const projectPath = requireOption('project', values.project);
    const flag = listOption('matched-grid', values['matched-grid']);
    const project = openProject(projectPath, { readOnly: true });
    try {
      const report = metricsReport(project, flag);
      console.log(values.json ? toJson(report) : printReport(report));
    } finally {
      project.close();
    }
    return 0;
  },
};
