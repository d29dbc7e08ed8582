/** Hash routes: #/open, #/queue, #/item/<model>/<split>/<sampleId> (each part URI-encoded). */
import type { ItemRef } from '../shared/api/contract';

export type Route = { view: 'open' } | { view: 'queue' } | { view: 'overview' } | { view: 'codebook' } | { view: 'team' } | { view: 'item'; item: ItemRef };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'item' && parts.length === 4) {
    try {
      const [model, split, sampleId] = parts.slice(1).map(decodeURIComponent) as [string, string, string];
      if (model && split && sampleId) return { view: 'item', item: { model, split, sampleId } };
    } catch {
      /* fall through to the queue */
    }
  }
  if (parts[0] === 'open') return { view: 'open' };
  if (parts[0] === 'overview') return { view: 'overview' };
  if (parts[0] === 'codebook') return { view: 'codebook' };
  if (parts[0] === 'team') return { view: 'team' };
  return { view: 'queue' };
}

export function routeHash(r: Route): string {
  if (r.view === 'item') return `#/item/${[r.item.model, r.item.split, r.item.sampleId].map(encodeURIComponent).join('/')}`;
  return `#/${r.view}`;
}
