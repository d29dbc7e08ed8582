/**
 * Operation and event names without their schemas, so the sandboxed preload can expose one
 * function per operation without bundling zod. contract.ts checks that these lists equal
 * its tables' keys (a compile-time error when they drift).
 */
export const OP_NAME_LIST = [
  'project:open',
  'project:info',
  'grids:list',
  'queue:page',
  'item:get',
  'frames:strips',
  'frames:cancel',
  'frames:full',
  'annotation:state',
  'annotation:apply',
  'annotation:undo',
  'annotation:redo',
  'codebook:get',
  'settings:get',
  'settings:set',
  'import:run',
  'export:run',
  'job:cancel',
  'dialog:pick',
  'files:list',
  'recent:list',
  'annotator:get',
  'annotator:set',
  'overview:get',
  'overview:cascade',
  'overview:cascade-items',
  'overview:items',
  'views:list',
  'views:save',
  'views:rename',
  'views:delete',
  // team workflow (shared/api/team-contract.ts)
  'codebook:set',
  'team:item',
  'team:agreement',
  'team:conflicts',
  'team:adjudicate',
  'team:merge',
  // team sync (shared/api/sync-contract.ts)
  'sync:status',
  'sync:configure',
  'sync:run',
] as const;

export const EVENT_NAME_LIST = ['job:progress', 'frames:tile', 'data:changed', 'menu:command'] as const;

export const IPC_PREFIX = 'flipbook:';
export const IPC_EVENT_CHANNEL = 'flipbook:event';
