/** The project store's public API (docs/architecture.md "Data"). */
export { openProject, createProjectWith } from './project';
export { loadDefaultCodebook } from './default-codebook';
export type { Project, OpenProjectOptions, GridInfo, ItemFilter, ResponseRecord, RunRecord, SavedView, SavedViews, MediaEntry } from './project';
export type { ImportSummary, ImportOverrides } from './import-apply';
export { framesFromKey } from './import-apply';
export type { AnnotationStore } from './annotations';
export type { ScannedColumn, ScannedGrid, StringTable } from './column-scan';
export { replay as replayAnnotationEvents } from './annotation-replay';
export { ProjectLockedError, ProjectVersionError, ProjectReadOnlyError, ProjectOpenError, ProjectNotWritableError } from './errors';
export { lockHolder, lockPathFor } from './lock';
export { latestVersion, migrate, loadMigrations } from './migrate';
export type { Migration, MigrationResult } from './migrate';
