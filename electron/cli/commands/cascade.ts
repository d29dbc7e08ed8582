import { openProject } from '../../store/index';
import { cascade } from '../../../shared/engine/cascade';
import { integerOption, listOption, parseCli, requireOption, table, toJson } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook cascade --project P --model M --split S --budgets c1,c2,… --reference C
                        [--seed N] [--json]

Confidence cascade (metrics.md §5): each item starts at the cheapest budget and moves up until
the model's margin (else confidence) reaches τ. Prints the sweep's Pareto front, the cheapest τ
matching the reference budget's accuracy, and a held-out figure (τ chosen on a seeded half).

Options:
  --project P     the .flipbook project file (opened read-only)
  --model M       model
  --split S       split
  --budgets L     comma-separated chain of visual configs, cheapest first (e.g. 16f_151k,32f_151k,64f_151k)
  --reference C   the fixed budget to match (e.g. 64f_151k)
  --seed N        seed of the held-out split (default 0)
  --json          print JSON

Exit codes: 0 ok, 1 failure (e.g. unknown config, no confidence recorded), 2 bad usage.`;

const pct = (x: number | null): string => (x === null ? '—' : (100 * x).toFixed(2));

export const cascadeCommand: CliCommand = {
  name: 'cascade',
  summary: 'Confidence cascade over a budget chain against a reference budget',
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, {
      project: { type: 'string' },
      model: { type: 'string' },
      split: { type: 'string' },
      budgets: { type: 'string' },
      reference: { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
    });
    const projectPath = requireOption('project', values.project);
    const model = requireOption('model', values.model);
    const split = requireOption('split', values.split);
    const budgets = listOption('budgets', requireOption('budgets', values.budgets))!;
    const reference = requireOption('reference', values.reference);
    const seed = integerOption('seed', values.seed) ?? 0;
    if (new Set(budgets).size !== budgets.length) throw new UsageError('--budgets lists a config twice');

    const project = openProject(projectPath, { readOnly: true });
    let result;
    try {
      const m = project.loadMatrix(model, split);
      const known = new Set(m.configs.map((c) => c.key));
      for (const k of [...budgets, reference]) {
        if (!known.has(k)) throw new Error(`${model} / ${split} has no config "${k}" (it has ${[...known].join(', ')})`);
      }
      result = cascade(m, { budgets, reference, seed });
    } finally {
      project.close();
    }
    if (values.json) {
      console.log(toJson({ model, split, ...result }));
      return 0;
    }
    const op = result.operatingPoint;
    const lines = [
      `${model} / ${split}: cascade ${result.budgets.join(' → ')} vs ${result.reference} (${result.n} items, ${result.nExcluded} excluded, signal: ${result.signal})`,
      `reference accuracy ${pct(result.referenceAccuracy)}% at ${result.referenceFrames} frames`,
      table(
        ['τ', 'accuracy %', 'shared frames', 'unshared frames'],
        result.pareto.map((p) => [Number.isFinite(p.tau) ? p.tau.toFixed(4) : '∞', pct(p.accuracy), p.meanSharedCost.toFixed(2), p.meanUnsharedCost.toFixed(2)]),
      ),
      op
        ? `operating point: τ ${Number.isFinite(op.tau) ? op.tau.toFixed(4) : '∞'}, accuracy ${pct(op.accuracy)}%, ` +
          `${pct(op.savingVsReference)}% fewer frames than ${result.reference} (shared; unshared ${pct(op.unsharedSavingVsReference)}%)` +
          (op.latencySavingVsReference !== undefined ? `, latency ${pct(op.latencySavingVsReference)}% lower` : '')
        : `operating point: none — no τ reaches ${result.reference}'s accuracy`,
      `held out (seed ${result.heldOut.seed}, tune ${result.heldOut.nTune} / eval ${result.heldOut.nEval}): ` +
        (result.heldOut.tau === null
          ? 'no τ reached the reference on the tuning half'
          : `accuracy ${pct(result.heldOut.accuracy)}% vs reference ${pct(result.heldOut.referenceAccuracy)}%, saving ${pct(result.heldOut.savingVsReference)}%`),
    ];
    console.log(lines.join('\n'));
    return 0;
  },
};
