import { openProject } from '../../store/index';
import { cascade } from '../../../shared/engine/cascade';
import type { ResponseMatrix } from '../../../shared/domain/types';
import { probeVideo } from '../../media/probe';
import { createProjectMetadataCache } from '../../media/project-metadata-cache';
import { samplerOverridesOf, selectItemFrames } from '../../frames/item-frames';
import type { Project } from '../../store/project';
import { integerOption, listOption, parseCli, progress, requireOption, table, toJson } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook cascade --project P --model M --split S --budgets c1,c2,… --reference C
                        [--seed N] [--json]

Confidence cascade (docs/metrics.md §5): each item starts at the cheapest budget and moves up until
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

/**
 * The shared frame cost (docs/metrics.md §5) counts the union of the frames each budget saw.
 * Recorded frame_indices win (the engine reads them from the matrix); otherwise the frames
 * come from each config's sampling policy over the item's video (probed once, cached in the
 * project), the same selection the item view's strips show. Items without a readable video
 * fall back to the engine's nested-grid assumption, and the output says how many did.
 */
async function policyFrameSets(project: Project, m: ResponseMatrix, budgets: string[]) {
  const cols = budgets.map((b) => m.configs.findIndex((c) => c.key === b));
  const specs = cols.map((c) => m.configs[c]!);
  const C = m.configs.length;
  const sets = new Map<string, Int32Array>();
  const cache = createProjectMetadataCache(project);
  const overrides = samplerOverridesOf(project);
  let fromPolicy = 0;
  let noVideo = 0;
  const errors: string[] = [];
  for (let row = 0; row < m.itemIds.length; row++) {
    if (cols.every((c) => m.frameIndices[row * C + c])) continue;
    const sampleId = m.itemIds[row]!;
    try {
      const sel = await selectItemFrames(project, (file) => probeVideo(file, { cache }), { model: m.model, split: m.split, sampleId }, specs, overrides);
      if (sel === null) {
        noVideo++;
        continue;
      }
      sel.configs.forEach((cf, j) => sets.set(`${row}\u0000${budgets[j]}`, Int32Array.from(cf.frames)));
      fromPolicy++;
    } catch (e) {
      noVideo++;
      if (errors.length < 5) errors.push(`${m.split}/${sampleId}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  // null → the engine uses the recorded indices, else the nested assumption.
  const frameSet = (row: number, config: string) => sets.get(`${row}\u0000${config}`) ?? null;
  return { frameSet, fromPolicy, noVideo, errors };
}

const pct = (x: number | null): string => (x === null ? '—' : (100 * x).toFixed(2));

export const cascadeCommand: CliCommand = {
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
      const sets = await policyFrameSets(project, m, budgets);
      if (sets.fromPolicy > 0) progress(`frame sets from the sampling policy for ${sets.fromPolicy} item(s)`);
      result = { ...cascade(m, { budgets, reference, seed, frameSet: sets.frameSet }), frameSets: { fromPolicy: sets.fromPolicy, noVideo: sets.noVideo, errors: sets.errors } };
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
      `shared frame cost from: recorded frame_indices or the sampling policy over the video for ${result.sharedCostBasis.frameSets} item(s)` +
        (result.sharedCostBasis.nestedAssumption ? `, nested-grid assumption for ${result.sharedCostBasis.nestedAssumption} (no readable video)` : ''),
      ...result.frameSets.errors.map((e) => `  warning: ${e}`),
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
