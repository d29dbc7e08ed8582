// Zip import limits (docs/security.md, "Import limits"): a zip bomb is refused while it
// inflates, a full temp disk is a clean ImportError, and no temp folder is left either way.
import { Zip, ZipDeflate, ZipPassThrough, strToU8, zipSync } from 'fflate';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { unzipTo, ZIP_LIMITS } from '../../../electron/importers/release-layout';
import { Scratch, refusal } from './helpers';

const scratch = new Scratch();
const mounted: string[] = [];
afterAll(() => {
  for (const m of mounted) execFileSync('umount', [m]);
  scratch.cleanup();
});

// Extraction goes to os.tmpdir(), which follows TMPDIR: point it at a folder the test watches.
let savedTmp: string | undefined;
beforeEach(() => {
  savedTmp = process.env.TMPDIR;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

/** A zip with one entry of `mb` MiB of zeros, made with the streaming Zip (never held whole). */
async function zerosZip(path: string, entry: string, mb: number): Promise<void> {
  const parts: Uint8Array[] = [];
  await new Promise<void>((resolve, reject) => {
    const zip = new Zip((err, data, final) => {
      if (err) return reject(err);
      parts.push(data);
      if (final) resolve();
    });
    const readme = new ZipPassThrough('release/README.md');
    zip.add(readme);
    readme.push(strToU8('a release'), true);
    const f = new ZipDeflate(entry, { level: 1 });
    zip.add(f);
    const mib = new Uint8Array(2 ** 20);
    for (let i = 0; i < mb; i++) f.push(mib, i === mb - 1);
    zip.end();
  });
  writeFileSync(path, Buffer.concat(parts));
}

describe('zip import limits', () => {
  it('a zip bomb is refused naming the zip and the entry, and leaves no temp folder', async () => {
    const tmp = scratch.path('tmp-bomb');
    mkdirSync(tmp);
    process.env.TMPDIR = tmp;
    const zip = scratch.path('bomb.zip');
    await zerosZip(zip, 'release/labels/per_item.csv', 64);
    const err = await refusal(readImport(zip));
    expect(err.file).toBe(zip);
    expect(err.field).toBe('release/labels/per_item.csv');
    expect(err.message).toMatch(/bomb\.zip:0: release\/labels\/per_item\.csv: entry inflates more than 200× its compressed size/);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('the total budget is counted across entries as they inflate', async () => {
    const dest = scratch.path('budget-dest');
    mkdirSync(dest);
    const entries: Record<string, Uint8Array> = {};
    for (let i = 0; i < 4; i++) entries[`release/media/${i}.bin`] = randomBytes(300_000);
    const zip = scratch.write('budget.zip', zipSync(entries));
    const err = await refusal(unzipTo(zip, dest, { ...ZIP_LIMITS, maxTotalBytes: 700_000 }));
    expect(err.message).toMatch(/budget\.zip:0: release\/media\/2\.bin: the zip inflates past/);
  });

  it('a full temp disk (ENOSPC) is a clean ImportError and leaves nothing behind', async (ctx) => {
    if (process.getuid?.() !== 0) {
      console.log('skipped: mounting a small tmpfs needs root');
      ctx.skip();
    }
    const tmp = scratch.path('tmpfs');
    mkdirSync(tmp);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', tmp]);
    } catch (e) {
      console.log(`skipped: cannot mount a tmpfs here (${(e as Error).message.split('\n')[0]})`);
      ctx.skip();
    }
    mounted.push(tmp);
    process.env.TMPDIR = tmp;
    // Incompressible, so only the disk (1 MiB) limits it.
    const zip = scratch.write('big.zip', zipSync({ 'release/labels/per_item.csv': strToU8('sample_id\n'), 'release/media/clip.bin': randomBytes(3 * 2 ** 20) }));
    const err = await refusal(readImport(zip));
    expect(err.message).toMatch(/big\.zip:0: release\/media\/clip\.bin: cannot extract: ENOSPC/);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
