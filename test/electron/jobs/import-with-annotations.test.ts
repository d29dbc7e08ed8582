// `flipbook import <release>` brings the release's annotations/ in with its responses, in one
// transaction: the annotator's edits arrive (undo history included), importing twice adds
// nothing, and a bad annotations file rejects the whole release.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportRelease } from '../../../electron/release/export';
import { openProject } from '../../../electron/store/index';
import { batch, config, response, tempDir } from '../store/helpers';

const repo = path.resolve(__dirname, '../../..');
const cli = (...args: string[]) => spawnSync(process.execPath, [path.join(repo, 'bin/flipbook.js'), ...args], { encoding: 'utf8' });
const item = { model: 'qwen', split: 'V1_short', sampleId: '001-1' };

async function bobsRelease(): Promise<string> {
  const dir = tempDir();
  const bob = openProject(path.join(dir, 'bob.flipbook'), { create: true });
  bob.applyImport(
    batch('bob.csv', {
      configs: [config('textonly', 0), config('16f_151k', 16)],
      responses: [
        response({ sampleId: '001-1', config: 'textonly', pred: 'A', correct: true, groundTruth: 'A', line: 2 }),
        response({ sampleId: '001-1', config: '16f_151k', pred: 'B', correct: false, groundTruth: 'A', line: 3 }),
      ],
    }),
  );
  bob.annotations.apply({ op: 'setPrimary', ...item, pathway: 'evidence-missed' }, 'bob');
  bob.annotations.apply({ op: 'setNotes', ...item, notes: 'first thought' }, 'bob');
  bob.annotations.undo('bob');
  bob.annotations.apply({ op: 'addSpan', ...item, span: { startS: 1, endS: 2.5, label: 'flash', coveredBy: ['16f_151k'] } }, 'bob');
  bob.close();
  const out = path.join(dir, 'release');
  const b2 = openProject(path.join(dir, 'bob.flipbook'));
  await exportRelease(b2, out);
  b2.close();
  return out;
}

describe('import of a release with annotations/', () => {
  it('adds the responses and every annotation event in one go; twice adds nothing', async () => {
    const release = await bobsRelease();
    const proj = path.join(tempDir(), 'alice.flipbook');
    const first = cli('import', release, '--project', proj, '--json');
    expect(first.status, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout) as { responsesAdded: number; annotations: { eventsAdded: number; eventsSkipped: number } };
    expect(summary.responsesAdded).toBe(2);
    const events = fs
      .readFileSync(path.join(release, 'annotations', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n').length;
    expect(summary.annotations).toMatchObject({ eventsAdded: events, eventsSkipped: 0 });

    const p = openProject(proj, { readOnly: true });
    const [state] = p.annotations.listStates({ annotator: 'bob' });
    expect(state).toMatchObject({ primaryPathway: 'evidence-missed', notes: '' });
    expect(state?.spans.map((s) => [s.startS, s.endS, s.label])).toEqual([[1, 2.5, 'flash']]);
    const count = p.annotations.eventCount();
    p.close();

    const second = cli('import', release, '--project', proj, '--json');
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).annotations).toMatchObject({ eventsAdded: 0, eventsSkipped: events });
    const again = openProject(proj, { readOnly: true });
    expect(again.annotations.eventCount()).toBe(count);
    again.close();
  });

  it('a malformed events.jsonl rejects the whole release, naming file and line; the project is not created', async () => {
    const release = await bobsRelease();
    const file = path.join(release, 'annotations', 'events.jsonl');
    fs.appendFileSync(file, '{"uuid": "x", "at": 5}\n');
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').length;
    const proj = path.join(tempDir(), 'alice.flipbook');
    const r = cli('import', release, '--project', proj);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`events.jsonl:${lines}`);
    expect(fs.existsSync(proj)).toBe(false);
  });
});
