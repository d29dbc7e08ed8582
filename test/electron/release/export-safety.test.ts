/**
 * docs/security.md "Names" and "Export": an imported file cannot choose where an export writes
 * (names that cannot be file names are refused at import, and the writer refuses any path that
 * leaves its folder whatever the project holds); `--out` replaces only a release Flipbook
 * wrote; `--zip` never overwrites an arbitrary file; what a killed export left is cleaned.
 * Real CLI processes on real projects.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { strFromU8, unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { unsafeNameReason } from '../../../shared/domain/names';
import { readImport } from '../../../electron/importers/index';
import { exportRelease } from '../../../electron/release/export';
import { openProject } from '../../../electron/store/project';
import { flipbook, writePerItem } from '../cli/cli-helpers';
import { tempDir } from '../../temp-dir';

let tmp = '';
beforeAll(() => {
  tmp = tempDir('flipbook-export-safety-');
});

/** A fresh folder with a project of model M on split S (two items, two configs). */
async function project(name: string): Promise<{ dir: string; file: string }> {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const csv = path.join(dir, 'per_item.csv');
  writePerItem(csv, 'M', 'S', { q1: { textonly: ['A', 0.5], '16f_151k': ['B', 0.5] }, q2: { textonly: ['B', 0.5], '16f_151k': ['A', 0.5] } });
  const file = path.join(dir, 'p.flipbook');
  await importInto(file, csv);
  return { dir, file };
}

async function importInto(file: string, csv: string): Promise<void> {
  const batches = await readImport(csv);
  const p = openProject(file, { create: true });
  try {
    p.applyImports(batches);
  } finally {
    p.close();
  }
}

/** exportRelease on the project (opened and closed around it); the error message, or null. */
async function exportError(file: string, out: string, zip = false): Promise<string | null> {
  const p = openProject(file);
  try {
    await exportRelease(p, out, { zip });
    return null;
  } catch (e) {
    return (e as Error).message;
  } finally {
    p.close();
  }
}

/** Renames the split inside the SQLite file, as a project written before names were checked could hold it. */
function renameSplit(file: string, name: string): void {
  const db = new Database(file);
  try {
    db.prepare('UPDATE splits SET name = ?').run(name);
  } finally {
    db.close();
  }
}

const pid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

describe('model and split names', () => {
  it('refuses at import what cannot be a file name, naming file, line and field', async () => {
    const dir = path.join(tmp, 'names');
    fs.mkdirSync(dir);
    const file = path.join(dir, 'p.flipbook');
    const csv = path.join(dir, 'bad.csv');
    const write = (model: string, split: string): void => {
      // Quoted fields: the names must reach the store exactly as written.
      const q = (s: string): string => `"${s.replaceAll('"', '""')}"`;
      fs.writeFileSync(
        csv,
        'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note\n' +
          `q1,M,S,textonly,0,0,A,A,1,t,\nq2,${q(model)},${q(split)},textonly,0,0,A,A,1,t,\n`,
      );
    };
    // The attack, end to end through the CLI: nothing is created.
    write('M', '/../../../../victim/package');
    const r = flipbook('import', csv, '--project', file);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stderr).toContain(`${csv}:3: split: "/../../../../victim/package" holds "/"`);
    expect(fs.existsSync(file)).toBe(false);

    const cases: [string, string, RegExp][] = [
      ['a\\b', 'S', /:3: model: .*"\\"/],
      ['CON', 'S', /:3: model: .*reserved device name/],
      ['M', 'nul.txt', /:3: split: .*reserved device name/],
      ['M.', 'S', /:3: model: .*ends with a dot/],
      ['M', '..', /:3: split: .*"\.\."/],
      ['M\u0001x', 'S', /:3: model: .*control character U\+0001/],
    ];
    for (const [model, split, why] of cases) {
      write(model, split);
      await expect(importInto(file, csv), `${model} / ${split}`).rejects.toThrow(why);
    }
    // Every refusal left the project as it was: empty.
    const p = openProject(file, { readOnly: true });
    try {
      expect(p.listModels()).toEqual([]);
    } finally {
      p.close();
    }
  });

  it('accepts the names real results use', () => {
    for (const n of ['Qwen2.5-VL-7B', 'LLaVA-NeXT-Video-7B-Qwen2', 'V1_short', 'MLVU', 'Ünicode-Model', 'InternVL3.5-8B', 'videomme_w_subtitle']) {
      expect(unsafeNameReason(n), n).toBeNull();
    }
  });

  it('refuses COM and LPT with a superscript digit, as Windows does, and nothing near them', () => {
    for (const n of ['COM\u00b9', 'lpt\u00b2.txt', 'Com\u00b3']) expect(unsafeNameReason(n), n).toMatch(/reserved device name/);
    for (const n of ['COM\u2074', 'COM10', 'LPT', 'COMx\u00b9']) expect(unsafeNameReason(n), n).toBeNull();
  });
});

describe('the export writer stays inside its folder whatever the project holds', () => {
  it('refuses a folder export whose split leaves --out (a project of an older Flipbook)', async () => {
    const { dir, file } = await project('old-folder');
    renameSplit(file, '/../../victim/package');
    const victim = path.join(dir, 'victim');
    fs.mkdirSync(victim);
    const out = path.join(dir, 'a', 'b', 'out');
    const r = flipbook('export', '--project', file, '--out', out);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stderr).toMatch(/refusing to write .*victim\/package/);
    expect(fs.readdirSync(victim)).toEqual([]);
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'a'))).toBe(false); // refused before anything was made
  });

  it('refuses a zip export with such a name (no ../ entry is ever written)', async () => {
    const { dir, file } = await project('old-zip');
    renameSplit(file, '../../x');
    expect(await exportError(file, path.join(dir, 'rel.zip'), true)).toMatch(/refusing to write "labels\/aggregated\/M_\.\.\/\.\.\/x\.json"/);
    expect(fs.existsSync(path.join(dir, 'rel.zip'))).toBe(false);
  });

  it('refuses two names that would be one file on Windows and macOS', async () => {
    const { dir, file } = await project('case');
    const csv = path.join(dir, 'm.csv');
    writePerItem(csv, 'm', 'S', { q1: { textonly: ['A', 0.5] } });
    await importInto(file, csv);
    expect(await exportError(file, path.join(dir, 'out'))).toMatch(/would be one file/);
  });
});

describe('--out replaces only what Flipbook wrote', () => {
  it('refuses a folder with other files (an upstream release folder with a document), keeping them', async () => {
    const { dir, file } = await project('upstream');
    const up = path.join(dir, 'release');
    fs.mkdirSync(path.join(up, 'labels'), { recursive: true });
    fs.writeFileSync(path.join(up, 'labels', 'per_item.csv'), 'sample_id\n');
    fs.writeFileSync(path.join(up, 'important.docx'), 'work');
    expect(await exportError(file, up)).toContain(`${up}: not a release Flipbook exported (it holds no README.md written by Flipbook)`);
    expect(fs.readFileSync(path.join(up, 'important.docx'), 'utf8')).toBe('work');
  });

  it('replaces its own export, but not once a user file was added to it', async () => {
    const { dir, file } = await project('own');
    const out = path.join(dir, 'out');
    expect(await exportError(file, out)).toBeNull();
    expect(await exportError(file, out)).toBeNull();
    fs.writeFileSync(path.join(out, 'labels', 'notes.txt'), 'mine');
    expect(await exportError(file, out)).toMatch(/files Flipbook did not write \(labels\/notes\.txt\)/);
    expect(fs.readFileSync(path.join(out, 'labels', 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('--zip never overwrites an arbitrary file, but replaces its own zip', async () => {
    const { dir, file } = await project('zip');
    const other = path.join(dir, 'thesis.zip');
    fs.writeFileSync(other, 'not a zip at all');
    const r = flipbook('export', '--project', file, '--out', other, '--zip');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${other}: exists and is not a zip Flipbook exported`);
    expect(fs.readFileSync(other, 'utf8')).toBe('not a zip at all');

    const own = path.join(dir, 'rel.zip');
    expect(await exportError(file, own, true)).toBeNull();
    expect(await exportError(file, own, true)).toBeNull();
    expect(strFromU8(unzipSync(fs.readFileSync(own))['README.md']!)).toContain('Exported by Flipbook');
  });
});

describe('leftovers of a killed export', () => {
  it('removes <out>.tmp-<pid> folders and <out>.zip.tmp-<pid> files of dead processes on the next run', async () => {
    const { dir, file } = await project('stale');
    const dead = pid();
    const staleDir = path.join(dir, `out.tmp-${dead}`);
    fs.mkdirSync(path.join(staleDir, 'labels'), { recursive: true });
    fs.writeFileSync(path.join(staleDir, 'labels', 'per_item.csv'), 'half');
    const staleZip = path.join(dir, `rel.zip.tmp-${dead}`);
    fs.writeFileSync(staleZip, 'half');
    // A live process's temp output is not touched.
    const live = path.join(dir, `out.tmp-${process.ppid}`);
    fs.mkdirSync(live);
    expect(await exportError(file, path.join(dir, 'out'))).toBeNull();
    expect(await exportError(file, path.join(dir, 'rel'), true)).toBeNull();
    expect(fs.existsSync(staleDir)).toBe(false);
    expect(fs.existsSync(staleZip)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
  });
});
