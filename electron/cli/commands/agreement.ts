import { openProject } from '../../store/index';
import { agreementReport, type AgreementReport } from '../../../shared/team/agreement';
import { parseCli, requireOption, table, toJson } from '../args';
import type { CliCommand } from '../command';

const HELP = `Usage: flipbook agreement --project P [--json]

Agreement between annotators per (model, split) (docs/metrics.md §9): for every pair of annotators
the raw agreement and Cohen's κ on the primary pathway and Cohen's κ per pathway tag; with
three or more annotators Fleiss' κ on the primary pathway over the items all of them labelled.
Every figure names the number of items behind it. κ is empty (null) when expected agreement is 1.

Options:
  --project P   the .flipbook project file (opened read-only)
  --json        print JSON instead of tables

Exit codes: 0 ok, 1 failure, 2 bad usage.`;

const fmt = (x: number | null): string => (x === null ? '—' : x.toFixed(3));

export function printAgreement(r: AgreementReport): string {
  if (r.groups.length === 0) return 'No labelled items.';
  const out: string[] = [];
  for (const g of r.groups) {
    out.push(`${g.model} / ${g.split}: ${g.annotators.length} annotators (${g.annotators.join(', ')}), ${g.nItems} labelled items`);
    if (g.pairs.length > 0) {
      out.push(
        table(
          ['pair', 'items both', 'primary n', 'raw agreement', 'Cohen κ'],
          g.pairs.map((p) => [`${p.a} × ${p.b}`, p.nBoth, p.primary.n, fmt(p.primary.rawAgreement), fmt(p.primary.kappa)]),
        ),
      );
      for (const p of g.pairs) {
        const tags = Object.entries(p.pathways);
        if (tags.length === 0) continue;
        out.push(`  per pathway, ${p.a} × ${p.b}:`);
        out.push(
          table(
            ['  pathway', 'n', 'raw agreement', 'Cohen κ'],
            tags.map(([id, c]) => [`  ${id}`, c.n, fmt(c.rawAgreement), fmt(c.kappa)]),
          ),
        );
      }
    }
    if (g.fleiss)
      out.push(
        `Fleiss κ (primary, ${g.fleiss.nRaters || g.annotators.length} annotators, ${g.fleiss.nItems} items all labelled): ${fmt(g.fleiss.kappa)}; observed agreement ${fmt(g.fleiss.observedAgreement)}`,
      );
    out.push('');
  }
  return out.join('\n').trimEnd();
}

export const agreementCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, { project: { type: 'string' }, json: { type: 'boolean' } });
    const project = openProject(requireOption('project', values.project), { readOnly: true });
    try {
      const report = agreementReport(project.annotations.listStates());
      console.log(values.json ? toJson(report) : printAgreement(report));
    } finally {
      project.close();
    }
    return 0;
  },
};
