/**
 * Handlers of the overview and saved-view operations, kept out of create-backend.ts so that
 * file only spreads them in (several people edit it). `need` returns the open project or
 * throws the backend's no-project ServiceError.
 */
import type { Project } from '../store/project';
import { SavedViewValue, type SavedViewDto } from '../../shared/api/overview';
import type { Handlers } from './dispatch';
import { ServiceError } from '../../shared/api/service-error';
import { cascadeFor, markItems, overviewOf, protocolMarkItems } from '../derived/overview';
import { cascadeCorrectRows } from '../../shared/engine/cascade';

type OverviewOps = 'overview:get' | 'overview:cascade' | 'overview:cascade-items' | 'overview:items' | 'views:list' | 'views:save' | 'views:rename' | 'views:delete';

/** Views whose stored JSON no longer parses (an older shape) are listed as unusable, not dropped silently. */
function listViews(p: Project): SavedViewDto[] {
  const out: SavedViewDto[] = [];
  for (const v of p.views.list()) {
    const parsed = SavedViewValue.safeParse(v.value);
    if (parsed.success) out.push({ id: v.id, name: v.name, value: parsed.data, updatedAt: v.updatedAt });
  }
  return out;
}

export function overviewHandlers(need: () => Project): Pick<Handlers, OverviewOps> {
  return {
    'overview:get': () => overviewOf(need()),
    'overview:cascade': (req) => {
      const p = need();
      const grid = p.listGrids().find((g) => g.model === req.model && g.split === req.split);
      if (!grid) throw new ServiceError('not-found', `no grid ${req.model} / ${req.split}`);
      const known = new Set(grid.configs.map((c) => c.key));
      for (const k of [...req.budgets, req.reference]) {
        if (!known.has(k)) throw new ServiceError('bad-request', `${req.model} / ${req.split} has no config "${k}"`);
      }
      try {
        return cascadeFor(p.loadMatrix(req.model, req.split), req.budgets, req.reference, req.seed ?? 0);
      } catch (e) {
        // The engine's chain/reference checks are the user's choice being wrong, not a crash.
        throw new ServiceError('bad-request', e instanceof Error ? e.message : String(e));
      }
    },
    'overview:cascade-items': (req) => {
      const p = need();
      if (!p.listGrids().some((g) => g.model === req.model && g.split === req.split)) throw new ServiceError('not-found', `no grid ${req.model} / ${req.split}`);
      const m = p.loadMatrix(req.model, req.split);
      try {
        return { correct: cascadeCorrectRows(m, { budgets: req.budgets, reference: req.reference }, req.tau).map((r) => m.itemIds[r] as string) };
      } catch (e) {
        throw new ServiceError('bad-request', e instanceof Error ? e.message : String(e));
      }
    },
    'overview:items': (req) => {
      const p = need();
      const grid = p.listGrids().find((g) => g.model === req.model && g.split === req.split);
      if (!grid) throw new ServiceError('not-found', `no grid ${req.model} / ${req.split}`);
      try {
        const mark = req.mark;
        if (mark.kind === 'protocolMoved' || mark.kind === 'recovered') {
          return { ids: protocolMarkItems(p.loadMatrix(req.model, req.split, { allProtocols: true }), p.mainProtocol().name, mark) };
        }
        return { ids: markItems(p.loadMatrix(req.model, req.split), mark) };
      } catch (e) {
        // An unknown config in the mark is the caller's mistake, not a crash.
        throw new ServiceError('bad-request', e instanceof Error ? e.message : String(e));
      }
    },
    'views:list': () => listViews(need()),
    'views:save': (req) => {
      const p = need();
      const v = p.views.save(req.name, req.value);
      return { id: v.id, name: v.name, value: req.value, updatedAt: v.updatedAt };
    },
    'views:rename': (req) => {
      const p = need();
      if (p.views.list().some((v) => v.name === req.name && v.id !== req.id)) throw new ServiceError('bad-request', `a view named "${req.name}" exists`);
      if (!p.views.list().some((v) => v.id === req.id)) throw new ServiceError('not-found', `no saved view ${req.id}`);
      p.views.rename(req.id, req.name);
      return listViews(p);
    },
    'views:delete': (req) => {
      const p = need();
      p.views.delete(req.id);
      return listViews(p);
    },
  };
}
