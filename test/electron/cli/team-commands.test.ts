/** `flipbook merge` and `flipbook agreement` through the real CLI on real project files. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { tempDir } from '../store/helpers';
import { flipbook } from './cli-helpers';

const HEADER = 'sample_id,model,split,annotator,status,primary_pathway,pathways,transition,notes,confidence,codebook_version,created_at,updated_at';
const AT = '2024-05-01T10:00:00.000Z';
const row = (id: string, who: string, primary: string) => `${id},m,s,${who},done,${primary},${primary},,,,1,${AT},${AT}`;

describe('flipbook merge / agreement', () => {
  it('merges an annotations/ folder idempotently and reports κ per pair with item counts', () => {
    const dir = tempDir('flipbook-cli-team-');
    const project = path.join(dir, 'p.flipbook');
    openProject(project, { create: true }).close();
    // Bob x x y y, Carol x y y y → raw ¾, κ = ½ (see test/shared/team/agreement.test.ts).
    const ann = path.join(dir, 'bundle', 'annotations');
    fs.mkdirSync(ann, { recursive: true });
    const bob = ['x', 'x', 'y', 'y'];
    const carol = ['x', 'y', 'y', 'y'];
    const rows = [...bob.map((p, i) => row(`i${i}`, 'bob', p)), ...carol.map((p, i) => row(`i${i}`, 'carol', p))];
    fs.writeFileSync(path.join(ann, 'pathways.csv'), `${HEADER}\n${rows.join('\n')}\n`);

    const first = flipbook('merge', path.join(dir, 'bundle'), '--project', project, '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ source: 'rows', added: 8, skipped: 0, annotators: ['bob', 'carol'], openConflicts: 1 });
    const second = flipbook('merge', path.join(dir, 'bundle'), '--project', project, '--json');
    expect(JSON.parse(second.stdout)).toMatchObject({ added: 0, skipped: 8, keysRecomputed: 0 });

    const json = flipbook('agreement', '--project', project, '--json');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { groups: { annotators: string[]; pairs: { nBoth: number; primary: { n: number; rawAgreement: number; kappa: number } }[] }[] };
    expect(report.groups[0]?.annotators).toEqual(['bob', 'carol']);
    expect(report.groups[0]?.pairs[0]?.nBoth).toBe(4);
    expect(report.groups[0]?.pairs[0]?.primary.rawAgreement).toBeCloseTo(0.75, 12);
    expect(report.groups[0]?.pairs[0]?.primary.kappa).toBeCloseTo(0.5, 12);
    const text = flipbook('agreement', '--project', project);
    expect(text.stdout).toMatch(/bob × carol\s+4\s+4\s+0\.750\s+0\.500/);
  });

  it('a bad bundle exits 1 with file:line: field and merges nothing; usage errors exit 2', () => {
    const dir = tempDir('flipbook-cli-team-');
    const project = path.join(dir, 'p.flipbook');
    openProject(project, { create: true }).close();
    fs.writeFileSync(path.join(dir, 'pathways.csv'), `${HEADER}\n${row('i0', 'bob', 'x')}\n${row('i1', 'bob', 'x').replace(',done,', ',great,')}\n`);
    const bad = flipbook('merge', dir, '--project', project);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/pathways\.csv:3: status: /);
    const p = openProject(project, { readOnly: true });
    expect(p.annotations.eventCount()).toBe(0);
    p.close();
    expect(flipbook('merge', '--project', project).code).toBe(2);
    expect(flipbook('agreement').code).toBe(2);
  });
});
