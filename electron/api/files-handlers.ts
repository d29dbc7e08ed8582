/**
 * The web mode's file chooser (docs/security.md "Web mode"): the entries of one folder, only
 * inside the user's own folders — the home directory, the open project's folder and its media
 * root — checked on the real path (symlinks resolved), so `..` or a link cannot reach beyond
 * them. Names and sizes only; what is chosen goes to the operations that check paths as always.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Res } from '../../shared/api/contract';
import { ServiceError } from '../../shared/api/service-error';
import { mediaRootOf } from '../media/item-video';
import type { Handlers } from './dispatch';
import type { Session } from './backend-session';

/** Most entries one answer lists. */
export const FILES_LIST_MAX = 2000;

const real = (p: string): string | null => {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
};
const within = (root: string, p: string): boolean => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

export function filesHandlers(session: () => Session | null, home: () => string = os.homedir): Pick<Handlers, 'files:list'> {
  const rootsNow = (): string[] => {
    const s = session();
    const candidates = [home(), ...(s ? [path.dirname(s.project.path), mediaRootOf(s.project)] : [])];
    const out: string[] = [];
    for (const c of candidates) {
      const r = c ? real(c) : null;
      if (r !== null && !out.some((o) => within(o, r))) out.push(r);
    }
    // A root inside one found later (a media root above the project's folder) adds nothing either.
    return out.filter((r, i) => !out.some((o, j) => j !== i && within(o, r)));
  };
  return {
    'files:list': (req): Res<'files:list'> => {
      const roots = rootsNow();
      const s = session();
      // Where the chooser opens: the project's folder, else home.
      const start = req.path ?? (s ? path.dirname(s.project.path) : home());
      if (!path.isAbsolute(start)) throw new ServiceError('bad-request', `not an absolute path: ${start}`);
      const dir = real(start);
      if (dir === null) throw new ServiceError('not-found', `no such folder: ${start}`);
      if (!roots.some((r) => within(r, dir))) throw new ServiceError('forbidden', `outside the folders the chooser shows (${roots.join(', ')}): ${start}`);
      let st: fs.Stats;
      try {
        st = fs.statSync(dir);
      } catch (e) {
        throw new ServiceError('not-found', `cannot read ${start}: ${(e as Error).message}`);
      }
      if (!st.isDirectory()) throw new ServiceError('bad-request', `not a folder: ${start}`);
      let dirents: fs.Dirent[];
      try {
        dirents = fs.readdirSync(dir, { withFileTypes: true });
      } catch (e) {
        throw new ServiceError('forbidden', `cannot list ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      const entries: Res<'files:list'>['entries'] = [];
      for (const d of dirents) {
        if (d.name.startsWith('.')) continue;
        let kind: 'dir' | 'file' | null = d.isDirectory() ? 'dir' : d.isFile() ? 'file' : null;
        let bytes: number | null = null;
        if (d.isSymbolicLink() || kind === 'file') {
          // A link is shown as what it points to, and only when that stays inside a root.
          const target = real(path.join(dir, d.name));
          if (target === null || !roots.some((r) => within(r, target))) continue;
          const t = fs.statSync(target, { throwIfNoEntry: false });
          kind = t?.isDirectory() ? 'dir' : t?.isFile() ? 'file' : null;
          bytes = t?.isFile() ? t.size : null;
        }
        if (kind !== null) entries.push({ name: d.name, kind, bytes });
      }
      entries.sort((a, b) => (a.kind === b.kind ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.kind === 'dir' ? -1 : 1));
      const parent = path.dirname(dir);
      return {
        path: dir,
        parent: parent !== dir && roots.some((r) => within(r, parent)) ? parent : null,
        roots,
        entries: entries.slice(0, FILES_LIST_MAX),
        truncated: entries.length > FILES_LIST_MAX,
      };
    },
  };
}
