/**
 * Per-machine settings in the user-data folder (Electron): annotator name, recent projects,
 * window bounds. Validated with zod on read; a corrupt file falls back to defaults.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const Schema = z.object({
  annotator: z.string().nullable().default(null),
  recent: z.array(z.string()).default([]),
  window: z
    .object({ x: z.number().optional(), y: z.number().optional(), width: z.number().min(400), height: z.number().min(300), maximized: z.boolean().default(false) })
    .nullable()
    .default(null),
});
export type UserSettings = z.infer<typeof Schema>;

export function createUserSettings(dir: string) {
  const file = path.join(dir, 'flipbook-settings.json');
  let data: UserSettings;
  try {
    data = Schema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    data = Schema.parse({});
  }
  const save = () => {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(data, null, 2));
    fs.renameSync(tmp, file);
  };
  return {
    get: (): UserSettings => data,
    update(patch: Partial<UserSettings>) {
      data = { ...data, ...patch };
      save();
    },
    addRecent(p: string) {
      data = { ...data, recent: [p, ...data.recent.filter((x) => x !== p)].slice(0, 10) };
      save();
    },
  };
}
export type UserSettingsStore = ReturnType<typeof createUserSettings>;
