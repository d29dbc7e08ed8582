/**
 * A folder export that cannot finish (docs/security.md "Export", "All or nothing"): it removes its
 * temp, puts a previous export it had moved aside back, and says what failed, naming the target
 * and the file being written — "export to out/ failed: the disk is full (ENOSPC) while writing
 * labels/per_item.csv; the previous export there is kept as it was" (or "nothing was left
 * there"); an error that is not the disk's passes through as it is. The disk's errors are
 * injected into node:fs here (in-process, so each failure point can be chosen); a real full disk
 * is test/electron/store/disk-full.test.ts's. Writes that the kernel cuts short are finished.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeConfigSpec } from '../../../shared/engine/config';
import { buildReleaseFiles, exportRelease } from '../../../electron/release/export';
import { readReleaseData } from '../../../electron/release/project-source';
import { openProject, type Project } from '../../../electron/store/project';
import { batch, response } from '../store/helpers';
import { tempDir } from '../../temp-dir';

/** What the injected node:fs does: a failure for a call (by operation and first argument), and the most bytes one writeSync writes. */
const faults = vi.hoisted(() => ({
  fail: null as ((op: string, arg: unknown) => Error | null) | null,
  chunk: Number.POSITIVE_INFINITY,
}));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const check = (op: string, arg: unknown): void => {
    const e = faults.fail?.(op, arg) ?? null;
    if (e !== null) throw e;
  };
  return {
    ...real,
    writeFileSync: (...a: Parameters<typeof real.writeFileSync>): void => {
      check('writeFileSync', a[0]);
      real.writeFileSync(...a);
    },
    writeSync: (fd: number, buffer: Uint8Array, offset: number, length: number): number => {
      check('writeSync', fd);
      return real.writeSync(fd, buffer, offset, Math.min(length, faults.chunk));
    },
    mkdirSync: (...a: Parameters<typeof real.mkdirSync>): string | undefined => {
      check('mkdirSync', a[0]);
      return real.mkdirSync(...a);
    },
    rmSync: (...a: Parameters<typeof real.rmSync>): void => {
      check('rmSync', a[0]);
      real.rmSync(...a);
    },
    renameSync: (from: fs.PathLike, to: fs.PathLike): void => {
      check('renameSync', `${String(from)} -> ${String(to)}`);
      real.renameSync(from, to);
    },
  };
});

function errno(code: string): Error {
  return Object.assign(new Error(`${code}: injected`), { code });
}

const NOW = new Date('2026-01-02T00:00:00Z');
let tmp = '';
let project: Project;
beforeAll(() => {
  tmp = tempDir('flipbook-export-failure-');
  project = openProject(path.join(tmp, 'p.flipbook'), { create: true });
  const keys = ['textonly', '16f_151k', '32f_151k'];
  let line = 1;
  // Enough rows that per_item.csv takes many cut-short writes.
  const responses = Array.from({ length: 60 }, (_, i) => `item-${String(i).padStart(3, '0')}`).flatMap((id) =>
    keys.map((k) => response({ model: 'M', split: 'S', sampleId: id, config: k, pred: 'A', groundTruth: id < 'item-030' ? 'A' : 'B', line: line++ })),
  );
  project.applyImport(batch('f.csv', { configs: keys.map((k) => makeConfigSpec(k)), responses }));
});
afterAll(() => project.close());
afterEach(() => {
  faults.fail = null;
  faults.chunk = Number.POSITIVE_INFINITY;
});

/** Every file below `dir` with its bytes (base64), to show a failure changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out[path.relative(dir, path.join(e.parentPath, e.name))] = fs.readFileSync(path.join(e.parentPath, e.name)).toString('base64');
  }
  return out;
}

/** The error `exportRelease` rejects with. */
async function failure(out: string): Promise<Error> {
  try {
    await exportRelease(project, out, { now: NOW });
  } catch (e) {
    return e as Error;
  }
  throw new Error('the export did not fail');
}

describe('a folder export that fails', () => {
  it('on a fresh target: says the disk is full while writing the file, and leaves nothing', async () => {
    const dir = path.join(tmp, 'fresh');
    const out = path.join(dir, 'rel');
    const injected = errno('ENOSPC');
    faults.fail = (op, arg) => (op === 'writeFileSync' && String(arg).endsWith(path.join('labels', 'derived.csv')) ? injected : null);
    const e = await failure(out);
    expect(e.message).toBe(`export to ${out} failed: the disk is full (ENOSPC) while writing labels/derived.csv; nothing was left there`);
    expect(e.cause).toBe(injected);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('while streaming per_item.csv over a previous export: names it, and keeps the previous export as it was', async () => {
    const dir = path.join(tmp, 'stream');
    const out = path.join(dir, 'rel');
    await exportRelease(project, out, { now: new Date('2025-01-01T00:00:00Z') });
    const before = snapshot(out);
    faults.fail = (op) => (op === 'writeSync' ? errno('EIO') : null);
    const e = await failure(out);
    expect(e.message).toBe(`export to ${out} failed: the disk reported an input/output error (EIO) while writing labels/per_item.csv; the previous export there is kept as it was`);
    expect(fs.readdirSync(dir)).toEqual(['rel']);
    expect(snapshot(out)).toEqual(before);
  });

  it('when the new export cannot take its place: puts the previous one back', async () => {
    const dir = path.join(tmp, 'swap');
    const out = path.join(dir, 'rel');
    await exportRelease(project, out, { now: new Date('2025-01-01T00:00:00Z') });
    const before = snapshot(out);
    // The previous export has been moved aside; moving the new one into place fails.
    faults.fail = (op, arg) => (op === 'renameSync' && String(arg).endsWith(` -> ${out}`) && !String(arg).includes('-old') ? errno('EDQUOT') : null);
    const e = await failure(out);
    expect(e.message).toBe(`export to ${out} failed: the disk quota is exceeded (EDQUOT) while writing the folder; the previous export there is kept as it was`);
    expect(fs.readdirSync(dir)).toEqual(['rel']);
    expect(snapshot(out)).toEqual(before);
  });

  it('when the previous export cannot be moved aside: keeps it, and passes an error of another kind on as it is', async () => {
    const dir = path.join(tmp, 'aside');
    const out = path.join(dir, 'rel');
    await exportRelease(project, out, { now: new Date('2025-01-01T00:00:00Z') });
    const before = snapshot(out);
    const injected = errno('EPERM');
    faults.fail = (op, arg) => (op === 'renameSync' && String(arg).startsWith(`${out} -> `) ? injected : null);
    expect(await failure(out)).toBe(injected);
    expect(fs.readdirSync(dir)).toEqual(['rel']);
    expect(snapshot(out)).toEqual(before);
  });
});

describe('a folder export that is in place', () => {
  it('is done even when the previous export, moved aside, cannot be removed (a later run removes it)', async () => {
    const dir = path.join(tmp, 'placed');
    const out = path.join(dir, 'rel');
    await exportRelease(project, out, { now: new Date('2025-01-01T00:00:00Z') });
    const aside = `${out}.tmp-${process.pid}-old`;
    faults.fail = (op, arg) => (op === 'rmSync' && String(arg) === aside ? errno('EIO') : null);
    const s = await exportRelease(project, out, { now: NOW });
    expect(s.path).toBe(out);
    expect(fs.readFileSync(path.join(out, 'README.md'), 'utf8')).toContain('Exported by Flipbook on 2026-01-02.');
    // What is left is named as a temp of this process: once it has ended, the next run removes it.
    expect(fs.readdirSync(dir).sort()).toEqual(['rel', path.basename(aside)]);
    expect(fs.readFileSync(path.join(aside, 'README.md'), 'utf8')).toContain('Exported by Flipbook on 2025-01-01.');
  });
});

describe('a zip export that fails', () => {
  it('before its temp was made: says so, and leaves nothing', async () => {
    const dir = path.join(tmp, 'zip-open');
    const target = path.join(dir, 'rel.zip');
    faults.fail = (op, arg) => (op === 'writeFileSync' && String(arg).startsWith(`${target}.tmp-`) ? errno('EROFS') : null);
    await expect(exportRelease(project, target, { zip: true, now: NOW })).rejects.toThrow(
      `export to ${target} failed: the file system is read-only (EROFS) while writing the zip; nothing was left there`,
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('a folder export whose temp cannot be made', () => {
  it('names the first file, and leaves nothing', async () => {
    const dir = path.join(tmp, 'no-temp');
    fs.mkdirSync(dir);
    const out = path.join(dir, 'rel');
    faults.fail = (op, arg) => (op === 'mkdirSync' && String(arg) === `${out}.tmp-${process.pid}` ? errno('ENOSPC') : null);
    const e = await failure(out);
    expect(e.message).toBe(`export to ${out} failed: the disk is full (ENOSPC) while writing README.md; nothing was left there`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('writes the kernel cuts short', () => {
  it('are finished: the streamed per_item.csv is whole', async () => {
    faults.chunk = 1000;
    const out = path.join(tmp, 'short', 'rel');
    const s = await exportRelease(project, out, { now: NOW });
    const expected = buildReleaseFiles(readReleaseData(project), { now: NOW }).files.find((f) => f.path === 'labels/per_item.csv')!.data;
    expect(expected.byteLength).toBeGreaterThan(3000);
    const written = fs.readFileSync(path.join(out, 'labels', 'per_item.csv'));
    expect(written.equals(Buffer.from(expected))).toBe(true);
    expect(s.files.find((f) => f.path === 'labels/per_item.csv')!.bytes).toBe(expected.byteLength);
  });
});
