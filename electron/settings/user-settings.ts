/**
 * Per-machine settings of Flipbook (one file for the desktop app and the CLI's web mode):
 * the annotator name, recent projects, window bounds, and the port and token `serve` last
 * used per project. Validated with zod on read; a corrupt file falls back to defaults.
 * Each update re-reads the file first, so two processes (the app and a `serve`) do not
 * undo each other's changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';

const ServeMemory = z.object({
  port: z.number().int().min(1).max(65535),
  token: z.string().regex(/^[A-Za-z0-9_-]{16,200}$/),
});
export type ServeMemory = z.infer<typeof ServeMemory>;

const Schema = z.object({
  annotator: z.string().nullable().default(null),
  recent: z.array(z.string()).default([]),
  window: z
    .object({ x: z.number().optional(), y: z.number().optional(), width: z.number().min(400), height: z.number().min(300), maximized: z.boolean().default(false) })
    .nullable()
    .default(null),
  /** By absolute project path: what `flipbook serve` listened on last (its token is a secret: the file is mode 0600). */
  serve: z.record(z.string(), ServeMemory).default({}),
});
export type UserSettings = z.infer<typeof Schema>;

export const SETTINGS_FILE = 'flipbook-settings.json';

/**
 * Where the settings live: `$FLIPBOOK_USER_DATA`, else the platform's per-user config folder
 * for "Flipbook" (what Electron's userData is; the desktop app sets it to this same folder).
 */
export function defaultUserDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FLIPBOOK_USER_DATA) return path.resolve(env.FLIPBOOK_USER_DATA);
  const home = os.homedir();
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Flipbook');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Flipbook');
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'Flipbook');
}

export function createUserSettings(dir: string = defaultUserDataDir()) {
  const file = path.join(dir, SETTINGS_FILE);
  const read = (): UserSettings => {
    try {
      return Schema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
    } catch {
      return Schema.parse({});
    }
  };
  let data = read();
  const change = (f: (d: UserSettings) => UserSettings) => {
    data = f(read());
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${file}.tmp-${process.pid}`;
    // The file holds serve tokens: readable by this user only.
    fs.writeFileSync(tmp, JSON.stringify(data, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, file);
  };
  return {
    file,
    get: (): UserSettings => data,
    update(patch: Partial<UserSettings>) {
      change((d) => ({ ...d, ...patch }));
    },
    addRecent(p: string) {
      change((d) => ({ ...d, recent: [p, ...d.recent.filter((x) => x !== p)].slice(0, 10) }));
    },
    setAnnotator(name: string) {
      change((d) => ({ ...d, annotator: name }));
    },
    serveMemory: (project: string): ServeMemory | null => read().serve[path.resolve(project)] ?? null,
    rememberServe(project: string, m: ServeMemory) {
      change((d) => ({ ...d, serve: { ...d.serve, [path.resolve(project)]: m } }));
    },
  };
}
export type UserSettingsStore = ReturnType<typeof createUserSettings>;
