/**
 * Whether a process of this host is alive, for the owners of leftovers (temp outputs named
 * `…tmp-<pid>`, legacy lock files): a crashed process's files are stale and may be removed.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * True while `pid` runs. A zombie (exited, not yet reaped by its parent) answers signal 0 but
 * is dead: on Linux its state in /proc/<pid>/stat is `Z` (or `X`).
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else — still alive.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) S …`: comm may hold spaces and parentheses, the state follows the last ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (macOS, Windows): signal 0 is all there is
  }
}

/**
 * Removes `<dir>/<prefix><pid><rest>` entries whose pid is not a live process (a run killed
 * mid-write left them; docs/security.md "Leftovers"). `prefix` is matched literally.
 */
export function removeStaleTemps(dir: string, prefix: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)/.exec(name.slice(prefix.length));
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || processAlive(pid)) continue;
    try {
      fs.rmSync(path.join(dir, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      /* not ours to remove (permissions): leave it */
    }
  }
  return removed;
}
