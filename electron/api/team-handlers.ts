/**
 * Handlers of the team operations (shared/api/team-contract.ts): codebook editing, annotators
 * side by side, agreement, conflicts, adjudication and merge. createBackend spreads them into
 * its handler table; they need the open project and, for a merge, the backend's job runner
 * (the merge runs in a worker thread: background-jobs.ts).
 */
import type { TEAM_OP_NAMES } from '../../shared/api/team-contract';
import { agreementReport } from '../../shared/team/agreement';
import { codebookProblems } from '../../shared/team/codebook-rules';
import type { Project } from '../store/project';
import type { MergeReport } from '../jobs/merge';
import { toContractCodebook } from '../../shared/api/codebook';
import type { Handlers } from './dispatch';
import { ServiceError } from '../../shared/api/service-error';

export interface TeamDeps {
  project(): Project;
  /** Merges a bundle into the open project (in a worker) and refreshes what the UI thread derived from it. */
  merge(bundlePath: string, jobId: string | undefined): Promise<MergeReport>;
}

export function createTeamHandlers(deps: TeamDeps): Pick<Handlers, (typeof TEAM_OP_NAMES)[number]> {
  return {
    'codebook:set': (req) => {
      const problems = codebookProblems(req.codebook);
      if (problems.length > 0) throw new ServiceError('bad-request', `codebook not saved: ${problems.join('; ')}`);
      return toContractCodebook(deps.project().annotations.setCodebook(req.codebook));
    },
    'team:item': (req) => {
      const a = deps.project().annotations;
      return {
        labels: a.state(req.model, req.split, req.sampleId).map((s) => ({
          annotator: s.annotator,
          status: s.status,
          primaryPathway: s.primaryPathway,
          pathways: s.pathways,
          transition: s.transition,
          notes: s.notes,
          confidence: s.confidence,
          spans: s.spans.length,
          codebookVersion: s.codebookVersion,
          updatedAt: s.updatedAt,
        })),
        resolution: a.resolutions({ model: req.model, split: req.split, sampleId: req.sampleId })[0] ?? null,
        codebookVersion: a.getCodebook().version,
      };
    },
    'team:agreement': () => agreementReport(deps.project().annotations.listStates()),
    'team:conflicts': () => ({ conflicts: deps.project().annotations.conflicts() }),
    'team:adjudicate': (req) => {
      const a = deps.project().annotations;
      const item = { model: req.model, split: req.split, sampleId: req.sampleId };
      // The resolved primary is always among the resolved tags.
      const pathways = [...new Set([...req.pathways, ...(req.primary ? [req.primary] : [])])].sort();
      a.apply({ op: 'adjudicate', ...item, primary: req.primary, pathways, note: req.note }, req.adjudicator);
      const r = a.resolutions(item)[0];
      if (!r) throw new ServiceError('internal', 'the adjudication was not recorded');
      return r;
    },
    'team:merge': (req) => deps.merge(req.path, req.jobId),
  };
}
