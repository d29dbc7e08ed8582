/** The audit engine (docs/metrics.md §1–§7, §9): one import point for callers. */
export * from './config';
export * from './matrix';
export * from './mcqa';
export * from './trajectories';
export * from './open-ended';
export * from './token-f1';
export * from './cascade';
export * from './iso-compute';
export * from './kappa';
export * from './matched-grid';
export * from './prng';
export type { GridPlan } from './grid-plan';
