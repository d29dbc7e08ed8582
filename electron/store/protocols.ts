/** The project's protocols (docs/metrics.md §6), as the setting of the main one needs them. */
import { protocolLabel, protocolName } from '../../shared/engine/protocols';
import type { Project } from './project';

/** Every protocol of the project's grids ('' = untagged), in code-point order. */
export function projectProtocols(project: Pick<Project, 'listGrids'>): string[] {
  return [...new Set(project.listGrids({ allProtocols: true }).flatMap((g) => g.protocols))].sort();
}

/** A protocol as a user wrote it (`random`, `@random`, `untagged`), or why no grid of the project has it. */
export function knownProtocol(project: Pick<Project, 'listGrids'>, value: string): string | { error: string } {
  const name = protocolName(value);
  const available = projectProtocols(project);
  if (available.includes(name)) return name;
  return { error: `${value}: the project has no such protocol (it has ${available.map(protocolLabel).join(', ') || 'none'})` };
}
