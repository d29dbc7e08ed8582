/**
 * Where a project stands with each (server, space) it syncs with (docs/team-sync.md): the
 * cursors kept in its settings (never a password), the last target, this file's device id, and
 * how many of its own edits a space has not had yet.
 */
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { Project } from '../store/project';
import { parseServerUrl } from './connect';

/** Where a project stands with one (server, space): kept in the project's settings, never a password. */
const cursorSchema = z.object({
  server: z.string(),
  space: z.string(),
  spaceId: z.string().nullable(),
  pushedSeq: z.number().int().nonnegative(),
  pulledId: z.number().int().nonnegative(),
  lastSyncAt: z.string().nullable(),
  lastError: z.string().nullable(),
});
export type SyncCursor = z.infer<typeof cursorSchema>;

const CURSORS_SETTING = 'sync.cursors';
const DEVICE_SETTING = 'sync.device';
/** The last (server, space) synced, for the app's Sync panel. */
export const SYNC_TARGET_SETTING = 'sync.target';

export const syncTargetSchema = z.object({ server: z.string(), space: z.string() });

function readCursors(project: Project): Record<string, SyncCursor> {
  const raw = project.getSetting<unknown>(CURSORS_SETTING);
  const parsed = z.record(z.string(), cursorSchema).safeParse(raw ?? {});
  return parsed.success ? parsed.data : {};
}

const cursorKey = (server: string, space: string): string => `${server}#${space}`;

export function getCursor(project: Project, server: string, space: string): SyncCursor {
  return readCursors(project)[cursorKey(server, space)] ?? { server, space, spaceId: null, pushedSeq: 0, pulledId: 0, lastSyncAt: null, lastError: null };
}

export function putCursor(project: Project, c: SyncCursor): void {
  const all = readCursors(project);
  all[cursorKey(c.server, c.space)] = c;
  project.setSetting(CURSORS_SETTING, all);
}

/** This project file's device id (hostname + a random part), made on first use. */
export function deviceOf(project: Project): string {
  const d = project.getSetting<unknown>(DEVICE_SETTING);
  if (typeof d === 'string' && d) return d;
  const made = `${os.hostname()}/${randomUUID().slice(0, 8)}`;
  project.setSetting(DEVICE_SETTING, made);
  return made;
}

/**
 * Local edits not yet on the server: the annotator's events after the push cursor. Counted
 * without a connection (the app shows "n edits not yet synced" offline).
 */
export function pendingCount(project: Project, server: string, space: string, annotator?: string): number {
  const addr = parseServerUrl(server);
  return project.annotations.countAfter(getCursor(project, addr.display, space).pushedSeq, annotator ?? addr.user);
}
