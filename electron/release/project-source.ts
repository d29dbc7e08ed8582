/**
 * Reads the release snapshot out of a project store (electron/store/project.ts). The only
 * file of the exporter that knows the store's API.
 */
import type { ResponseMatrix } from '../../shared/domain/types';
import { proposeMatchedGrid } from '../../shared/engine/matched-grid';
import type { Project } from '../store/project';
import type { ExportOptions } from './export';
import type { ReleaseData, ReleasePathwayRow, ReleaseSpanRow } from './release-data';
import { gridMatrices } from './grid-matrices';
import { mainGridOf } from './protocol-files';
import { protocolsOf } from '../../shared/engine/protocols';

/** The part of the store the exporter uses. */
export type ProjectSource = Pick<Project, 'listConfigs' | 'listItems' | 'getSetting' | 'annotations' | 'scanColumns' | 'mainProtocol'>;

/** The project setting that holds the matched grid (docs/release-format.md). */
export const MATCHED_GRID_SETTING = 'matchedGrid';

/**
 * The matched grid of an export: the override, else the project's setting, else Flipbook's
 * proposal (docs/release-format.md: proposed until the user sets one). The proposal is a pure
 * function of the data, so an export → import → export (where the setting is not carried)
 * proposes the same grid again.
 */
export function matchedGridOf(project: ProjectSource, matrices: readonly ResponseMatrix[], override?: readonly string[]): string[] {
  if (override) return override.slice();
  // getSetting parses the stored JSON on every call: the list is this call's own, no copy needed.
  const v = project.getSetting<unknown>(MATCHED_GRID_SETTING);
  if (Array.isArray(v) && v.every((x): x is string => typeof x === 'string')) return v;
  return proposeMatchedGrid(matrices.map((m) => ({ model: m.model, split: m.split, configs: m.configs }))).configs;
}

export function readReleaseData(project: ProjectSource, opts: Pick<ExportOptions, 'matchedGrid' | 'includeText'> = {}): ReleaseData {
  const grids = project.scanColumns();
  const configs = project.listConfigs();
  const main = project.mainProtocol().name;
  const specs = new Map(configs.map((c) => [c.key, c] as const));
  const mainGrids = grids.flatMap((g) => mainGridOf(g, specs, main) ?? []);
  const matrices = gridMatrices(mainGrids, configs);
  const several = grids.filter((g) => protocolsOf(g.columns.map((c) => c.config)).length > 1);
  const protocolMatrices = new Map(gridMatrices(several, configs).map((m) => [`${m.model}\u0000${m.split}`, m] as const));
  const pathways: ReleasePathwayRow[] = [];
  const spans: ReleaseSpanRow[] = [];
  for (const s of project.annotations.listStates()) {
    pathways.push({
      sampleId: s.sampleId,
      model: s.model,
      split: s.split,
      annotator: s.annotator,
      status: s.status,
      primaryPathway: s.primaryPathway,
      pathways: s.pathways,
      transition: s.transition,
      notes: s.notes,
      confidence: s.confidence,
      codebookVersion: s.codebookVersion,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
    });
    for (const sp of s.spans) {
      spans.push({
        sampleId: s.sampleId,
        model: s.model,
        split: s.split,
        annotator: s.annotator,
        startS: sp.startS,
        endS: sp.endS,
        label: sp.label,
        coveredBy: sp.coveredBy,
      });
    }
  }
  const cb = project.annotations.getCodebook();
  return {
    grids,
    configs,
    // Every export writes provenance/videos.csv; the text (items.csv) only with --include-text.
    items: project.listItems(),
    mainProtocol: main,
    mainGrids,
    matrices,
    protocolMatrices,
    matchedGrid: matchedGridOf(project, matrices, opts.matchedGrid),
    codebook: {
      id: cb.id,
      version: cb.version,
      pathways: cb.pathways.map((p) => ({
        id: p.id,
        label: p.label,
        description: p.description,
        appliesTo: p.applies_to ?? null,
        shortcut: p.shortcut ?? null,
      })),
    },
    pathways,
    spans,
    events: project.annotations.exportEvents(),
  };
}
