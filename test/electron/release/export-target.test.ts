/**
 * docs/security.md "Export": an existing `--out` folder or `--zip` file is replaced only when it
 * is exactly a release Flipbook exported — a README.md with the `Exported by Flipbook` line, and
 * no file that export would not have written (the fixed files of docs/release-format.md, and the
 * two aggregated files of each `<model>_<split>` its table2_metrics.json lists). Anything else is
 * refused, naming it, and left as it was. Temps of dead runs beside the target are removed.
 * The checks are called directly on hand-made folders and zips.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { assertReplaceableFolder, assertReplaceableZip, removeStaleExportTemps } from '../../../electron/release/export-target';
import { tempDir } from '../../temp-dir';
import { specLayout } from './spec-layout';

/** docs/release-format.md's layout: every file an export may write whatever the project holds. */
const FIXED = specLayout().filter((p) => !p.includes('<model>_<split>'));

const README = '# Flipbook release export\n\nExported by Flipbook on 2026-03-04.\n\n## Contents\n';
/** table2_metrics.json is `{split: {model: metrics}}`: grids M_S and N_S, and M_T. */
const TABLE2 = JSON.stringify({ S: { M: { n: 2 }, N: { n: 1 } }, T: { M: { n: 3 } } });
const AGGREGATED = ['M_S', 'N_S', 'M_T'].flatMap((g) => [`labels/aggregated/${g}.json`, `labels/aggregated/${g}_predictions_wide.csv`]);

let tmp = '';
let n = 0;
beforeAll(() => {
  tmp = tempDir('flipbook-export-target-');
});

/** A fresh path under the scratch folder. */
function fresh(name: string): string {
  return path.join(tmp, `${n++}-${name}`);
}

/** Contents of each file: README.md and table2 as given, the rest a line naming the file. */
function contents(files: readonly string[], overrides: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of files) out[f] = overrides[f] ?? (f === 'README.md' ? README : f === 'labels/aggregated/table2_metrics.json' ? TABLE2 : `${f}\n`);
  return out;
}

function writeFolder(dir: string, files: Record<string, string>): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, ...rel.split('/'));
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
}

/** Every file below `dir` with its text, to show a refusal changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, prefix: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) walk(path.join(d, e.name), `${prefix}${e.name}/`);
      else out[`${prefix}${e.name}`] = fs.readFileSync(path.join(d, e.name), 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

/** The error message of `f`, or null when it does not throw. */
function folderError(dir: string): string | null {
  try {
    assertReplaceableFolder(dir);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

async function zipError(file: string): Promise<string | null> {
  try {
    await assertReplaceableZip(file);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

function refusedFolder(dir: string, why: string): string {
  return `${dir}: not a release Flipbook exported (${why}); refusing to replace it — choose another --out`;
}

function refusedZip(file: string, why: string): string {
  return `${file}: not a zip Flipbook exported (${why}); refusing to overwrite it — choose another --out`;
}

/** The names inside "it holds files Flipbook did not write (a, b, c)", without the trailing ", …". */
function foreignNamed(message: string | null): string[] {
  const m = /files Flipbook did not write \((.*)\)\); refusing/.exec(message ?? '');
  if (!m) throw new Error(`not a foreign-files refusal: ${message}`);
  return m[1]!.replace(/, …$/, '').split(', ');
}

const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

describe('assertReplaceableFolder', () => {
  it('lets an absent target, an empty folder and a folder of empty folders be written', () => {
    expect(folderError(fresh('absent'))).toBeNull();
    const empty = fresh('empty');
    fs.mkdirSync(empty);
    expect(folderError(empty)).toBeNull();
    const hollow = fresh('hollow');
    fs.mkdirSync(path.join(hollow, 'labels', 'aggregated'), { recursive: true });
    expect(folderError(hollow)).toBeNull();
  });

  it('replaces a folder holding every file an export may write, and the aggregated files table 2 names', () => {
    const dir = fresh('full');
    writeFolder(dir, contents([...FIXED, ...AGGREGATED]));
    expect(folderError(dir)).toBeNull();
  });

  it('accepts each fixed file on its own beside README.md (no table2_metrics.json)', async () => {
    // The list of fixed files is built when the module loads: a fresh load here, so that a
    // mistake in it shows whenever this test runs (docs/testing.md, module-level code).
    vi.resetModules();
    const { assertReplaceableFolder: check } = await import('../../../electron/release/export-target');
    for (const f of FIXED.filter((x) => x !== 'README.md')) {
      const dir = fresh('one');
      writeFolder(dir, contents(['README.md', f]));
      expect(() => check(dir), f).not.toThrow();
    }
  });

  it('refuses a folder with no README.md, or one Flipbook did not write, keeping its files', () => {
    const noReadme = fresh('no-readme');
    writeFolder(noReadme, contents(['labels/per_item.csv']));
    expect(folderError(noReadme)).toBe(refusedFolder(noReadme, 'it holds no README.md written by Flipbook'));
    expect(snapshot(noReadme)).toEqual(contents(['labels/per_item.csv']));

    // The date line must start a line: quoting it, or another tool's README, is not enough.
    for (const text of ['# upstream release\n', 'See "Exported by Flipbook on 2026-01-01." below\n', '', 'exported by flipbook on 2026-01-01.\n']) {
      const dir = fresh('other-readme');
      writeFolder(dir, contents(['README.md', 'labels/per_item.csv'], { 'README.md': text }));
      expect(folderError(dir), text).toBe(refusedFolder(dir, 'it holds no README.md written by Flipbook'));
      expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe(text);
    }
  });

  it('finds the date line on any line of README.md, the last one included', () => {
    for (const text of ['Exported by Flipbook on 2026-01-01.', 'a\nb\nExported by Flipbook on 2026-01-01.', README]) {
      const dir = fresh('date-line');
      writeFolder(dir, contents(['README.md'], { 'README.md': text }));
      expect(folderError(dir), text).toBeNull();
    }
  });

  it('refuses a README.md that is a folder or a symlink (never followed), however it reads', () => {
    const asDir = fresh('readme-dir');
    writeFolder(asDir, { 'README.md/x': 'Exported by Flipbook on 2026-01-01.\n' });
    expect(folderError(asDir)).toBe(refusedFolder(asDir, 'it holds no README.md written by Flipbook'));

    const real = fresh('real-readme.md');
    fs.writeFileSync(real, README);
    const linked = fresh('readme-link');
    writeFolder(linked, contents(['labels/per_item.csv']));
    fs.symlinkSync(real, path.join(linked, 'README.md'));
    expect(folderError(linked)).toBe(refusedFolder(linked, 'it holds no README.md written by Flipbook'));
    expect(fs.lstatSync(path.join(linked, 'README.md')).isSymbolicLink()).toBe(true);
  });

  it('names the files Flipbook did not write: up to three, then an ellipsis', () => {
    const one = fresh('one-foreign');
    writeFolder(one, contents([...FIXED, 'labels/notes.txt']));
    expect(folderError(one)).toBe(refusedFolder(one, 'it holds files Flipbook did not write (labels/notes.txt)'));

    const extra = ['a.docx', 'labels/b.txt', 'provenance/c.json', 'annotations/d.csv'];
    const three = fresh('three-foreign');
    writeFolder(three, contents(['README.md', ...extra.slice(0, 3)]));
    const m3 = folderError(three);
    expect(m3).not.toContain('…');
    expect(foreignNamed(m3).sort()).toEqual(extra.slice(0, 3).sort());

    const four = fresh('four-foreign');
    writeFolder(four, contents(['README.md', ...extra]));
    const m4 = folderError(four);
    expect(m4).toMatch(/, …\)\); refusing/);
    const named = foreignNamed(m4);
    expect(named).toHaveLength(3);
    for (const f of named) expect(extra).toContain(f);
    expect(snapshot(four)).toEqual(contents(['README.md', ...extra]));
  });

  it("allows a grid's aggregated files only when table 2 lists it, named <model>_<split>", () => {
    const listed = fresh('listed');
    writeFolder(listed, contents(['README.md', 'labels/aggregated/table2_metrics.json', ...AGGREGATED]));
    expect(folderError(listed)).toBeNull();

    // Without table 2, or with the names the other way round ({split: {model}}), they are foreign.
    const noTable = fresh('no-table2');
    writeFolder(noTable, contents(['README.md', 'labels/aggregated/M_S.json']));
    expect(folderError(noTable)).toBe(refusedFolder(noTable, 'it holds files Flipbook did not write (labels/aggregated/M_S.json)'));
    const swapped = fresh('swapped');
    writeFolder(swapped, contents(['README.md', 'labels/aggregated/table2_metrics.json', 'labels/aggregated/S_M_predictions_wide.csv']));
    expect(folderError(swapped)).toBe(refusedFolder(swapped, 'it holds files Flipbook did not write (labels/aggregated/S_M_predictions_wide.csv)'));
    // Another file of a listed grid, or one outside labels/aggregated/, is foreign too.
    const other = fresh('other-of-grid');
    writeFolder(other, contents(['README.md', 'labels/aggregated/table2_metrics.json', 'labels/M_S.json']));
    expect(folderError(other)).toBe(refusedFolder(other, 'it holds files Flipbook did not write (labels/M_S.json)'));
    const csv = fresh('grid-csv');
    writeFolder(csv, contents(['README.md', 'labels/aggregated/table2_metrics.json', 'labels/aggregated/M_S.csv']));
    expect(folderError(csv)).toBe(refusedFolder(csv, 'it holds files Flipbook did not write (labels/aggregated/M_S.csv)'));
  });

  it('refuses a table2_metrics.json Flipbook did not write (not JSON, or not {split: {model: …}})', () => {
    for (const text of ['{', '[]', '{"S": 5}', '{"S": null}', '"x"']) {
      const dir = fresh('bad-table2');
      writeFolder(dir, contents(['README.md', 'labels/aggregated/table2_metrics.json'], { 'labels/aggregated/table2_metrics.json': text }));
      expect(folderError(dir), text).toBe(refusedFolder(dir, 'its labels/aggregated/table2_metrics.json is not one Flipbook wrote'));
      expect(fs.readFileSync(path.join(dir, 'labels/aggregated/table2_metrics.json'), 'utf8')).toBe(text);
    }
    // An empty table (an export of a project without grids) is one Flipbook writes.
    const empty = fresh('empty-table2');
    writeFolder(empty, contents(['README.md', 'labels/aggregated/table2_metrics.json'], { 'labels/aggregated/table2_metrics.json': '{}' }));
    expect(folderError(empty)).toBeNull();
  });

  it('refuses a file, or a symlink to a folder, where the folder should be', () => {
    const file = fresh('a-file');
    fs.writeFileSync(file, 'mine');
    expect(folderError(file)).toBe(`${file}: exists and is not a folder; refusing to replace it`);
    expect(fs.readFileSync(file, 'utf8')).toBe('mine');

    const target = fresh('export');
    writeFolder(target, contents(FIXED));
    const link = fresh('link');
    fs.symlinkSync(target, link);
    expect(folderError(link)).toBe(`${link}: exists and is not a folder; refusing to replace it`);
  });
});

describe('assertReplaceableZip', () => {
  function writeZip(file: string, files: Record<string, string>, dirs: readonly string[] = []): void {
    const z: Zippable = {};
    for (const d of dirs) z[d] = new Uint8Array(0);
    for (const [rel, text] of Object.entries(files)) z[rel] = strToU8(text);
    fs.writeFileSync(file, zipSync(z));
  }

  it('lets an absent target be written, and replaces a zip of an export', async () => {
    expect(await zipError(fresh('absent.zip'))).toBeNull();
    const full = fresh('full.zip');
    writeZip(full, contents([...FIXED, ...AGGREGATED]));
    expect(await zipError(full)).toBeNull();
  });

  it('skips folder entries, and inflates only README.md and table2_metrics.json', async () => {
    const withDirs = fresh('dirs.zip');
    writeZip(withDirs, contents(['README.md', 'labels/per_item.csv']), ['labels/', 'labels/aggregated/']);
    expect(await zipError(withDirs)).toBeNull();

    // per_item.csv's compression method is one no reader knows: only listing it still works.
    const z = zipSync({ 'README.md': strToU8(README), 'labels/per_item.csv': strToU8('x'.repeat(200)) }, { level: 6 });
    const marked = patchMethod(z, 'labels/per_item.csv', 99);
    const odd = fresh('odd.zip');
    fs.writeFileSync(odd, marked);
    expect(await zipError(odd)).toBeNull();
  });

  it("refuses a zip without Flipbook's README.md or with other files, keeping it", async () => {
    const upstream = fresh('upstream.zip');
    writeZip(upstream, contents(['labels/per_item.csv', 'README.md'], { 'README.md': '# video-mme-scalegrid\n' }));
    const before = fs.readFileSync(upstream);
    expect(await zipError(upstream)).toBe(refusedZip(upstream, 'it holds no README.md written by Flipbook'));
    expect(fs.readFileSync(upstream).equals(before)).toBe(true);

    const extra = fresh('extra.zip');
    writeZip(extra, contents(['README.md', 'labels/aggregated/table2_metrics.json', 'labels/aggregated/M_S.json', 'thesis.docx', 'labels/aggregated/X_Y.json']));
    expect(await zipError(extra)).toBe(refusedZip(extra, 'it holds files Flipbook did not write (thesis.docx, labels/aggregated/X_Y.json)'));

    const badTable = fresh('bad-table.zip');
    writeZip(badTable, contents(['README.md', 'labels/aggregated/table2_metrics.json'], { 'labels/aggregated/table2_metrics.json': '{"S": []}' }));
    expect(await zipError(badTable)).toBe(refusedZip(badTable, 'its labels/aggregated/table2_metrics.json is not one Flipbook wrote'));
  });

  it('refuses a file that is not a zip, and a folder, unchanged', async () => {
    const thesis = fresh('thesis.zip');
    fs.writeFileSync(thesis, 'not a zip at all');
    expect(await zipError(thesis)).toBe(`${thesis}: exists and is not a zip Flipbook exported; refusing to overwrite it — choose another --out`);
    expect(fs.readFileSync(thesis, 'utf8')).toBe('not a zip at all');

    const folder = fresh('folder.zip');
    writeFolder(folder, contents(FIXED));
    expect(await zipError(folder)).toBe(`${folder}: exists and is not a file; refusing to replace it`);
    expect(snapshot(folder)).toEqual(contents(FIXED));
  });
});

/** `zip` with the compression method of entry `name` set to `method` in its local and central headers. */
function patchMethod(zip: Uint8Array, name: string, method: number): Uint8Array {
  const out = zip.slice();
  const dv = new DataView(out.buffer);
  const nameBytes = strToU8(name);
  const nameAt = (at: number, len: number): boolean => len === nameBytes.length && nameBytes.every((b, i) => out[at + i] === b);
  let patched = 0;
  for (let i = 0; i + 4 <= out.length; i++) {
    const sig = dv.getUint32(i, true);
    // Local header: name at 30, method at 8. Central header: name at 46, method at 10.
    if (sig === 0x04034b50 && nameAt(i + 30, dv.getUint16(i + 26, true))) (dv.setUint16(i + 8, method, true), patched++);
    if (sig === 0x02014b50 && nameAt(i + 46, dv.getUint16(i + 28, true))) (dv.setUint16(i + 10, method, true), patched++);
  }
  if (patched !== 2) throw new Error(`patched ${patched} headers of ${name}`);
  return out;
}

describe('removeStaleExportTemps', () => {
  it("removes a dead run's temps of this target only, and keeps a live run's", () => {
    const dir = fresh('temps');
    fs.mkdirSync(dir);
    const dead = deadPid();
    const names = [`out.tmp-${dead}`, `out.tmp-${dead}-old`, `out.zip.tmp-${dead}`, `other.tmp-${dead}`, `out.tmp-${process.ppid}`, 'out.tmp-x', 'out'];
    for (const n of names) fs.mkdirSync(path.join(dir, n));
    removeStaleExportTemps(path.join(dir, 'out'));
    expect(fs.readdirSync(dir).sort()).toEqual([`other.tmp-${dead}`, `out.tmp-${process.ppid}`, 'out', 'out.tmp-x', `out.zip.tmp-${dead}`].sort());
    removeStaleExportTemps(path.join(dir, 'out.zip'));
    expect(fs.readdirSync(dir)).not.toContain(`out.zip.tmp-${dead}`);
  });
});
