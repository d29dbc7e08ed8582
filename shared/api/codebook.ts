/** The store's codebook (lenient: applies_to may be a string) in the contract's shape. */
import type { Codebook as StoredCodebook } from '../domain/annotations';
import type { Codebook } from './contract';

export function toContractCodebook(cb: StoredCodebook): Codebook {
  return {
    id: cb.id,
    version: cb.version,
    pathways: cb.pathways.map((p) => ({
      id: p.id,
      label: p.label,
      description: p.description,
      applies_to: Array.isArray(p.applies_to) ? p.applies_to : typeof p.applies_to === 'string' ? [p.applies_to] : [],
      shortcut: p.shortcut ?? null,
    })),
  };
}
