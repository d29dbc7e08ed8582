import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { exportRelease } from '../../../electron/release/export';
import { openProject } from '../../../electron/store/project';
import { batch, config, response, tempDir } from '../store/helpers';
import { Scratch, expectImportError } from './helpers';

/** §"The release layout" of docs/formats.md: labels/items.csv and per_item.csv detection. */
const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('release: labels/items.csv is read back', () => {
  it('question, options, answer, task type, duration, domain and video survive export → import, metadata-only items too', async () => {
    const dir = tempDir('flipbook-items-');
    const p = openProject(join(dir, 'p.flipbook'), { create: true });
    const answered = {
      split: 'V1_short',
      sampleId: '001-1',
      question: 'How many lamps, "roughly", are lit?\nCount them.',
      options: ['one', 'two, or three', 'four'],
      answer: 'B',
      taskType: 'Counting Problem',
      durationS: 95.5,
      durationBucket: 'short',
      domain: 'Knowledge',
      subCategory: 'Humanity',
      videoId: 'vidA',
      videoFile: 'vidA.mp4',
      kind: 'mcqa' as const,
    };
    const metaOnly = {
      split: 'V1_short',
      sampleId: '001-2',
      question: 'Which colour is the car?',
      options: ['red', 'blue'],
      answer: 'A',
      kind: 'mcqa' as const,
      videoFile: 'vidA.mp4',
    };
    try {
      p.applyImport(
        batch('in', {
          items: [answered, metaOnly],
          configs: [config('16f', 16, null)],
          responses: [response({ sampleId: '001-1', config: '16f', line: 2, pred: 'B', groundTruth: 'B', correct: true })],
        }),
      );
      await exportRelease(p, join(dir, 'rel'), { includeText: true });
    } finally {
      p.close();
    }
    const [b] = await readImport(join(dir, 'rel'));
    const byId = new Map(b!.items.map((i) => [i.sampleId, i]));
    expect(byId.get('001-1')).toMatchObject({ ...answered });
    expect(byId.get('001-2')).toMatchObject({ ...metaOnly });
  });

  it('an export without the text keeps video ids, file names and durations (provenance/videos.csv), and nothing of the text', async () => {
    const dir = tempDir('flipbook-videos-');
    const p = openProject(join(dir, 'p.flipbook'), { create: true });
    const item = {
      split: 'V1_short',
      sampleId: '001-1',
      question: 'How many lamps?',
      options: ['one', 'two'],
      answer: 'B',
      taskType: 'Counting Problem',
      durationS: 95.5,
      durationBucket: 'short',
      videoId: 'fFjv93ACGo8',
      videoFile: 'fFjv93ACGo8.mp4',
      kind: 'mcqa' as const,
    };
    try {
      p.applyImport(
        batch('in', {
          items: [item],
          configs: [config('16f', 16, null)],
          responses: [response({ sampleId: '001-1', config: '16f', line: 2, pred: 'B', groundTruth: 'B', correct: true })],
        }),
      );
      await exportRelease(p, join(dir, 'rel'));
    } finally {
      p.close();
    }
    const { readFileSync, existsSync } = await import('node:fs');
    expect(existsSync(join(dir, 'rel/labels/items.csv'))).toBe(false);
    const videos = readFileSync(join(dir, 'rel/provenance/videos.csv'), 'utf8');
    expect(videos).toBe('split,sample_id,video_id,video_file,duration_s,duration_bucket\nV1_short,001-1,fFjv93ACGo8,fFjv93ACGo8.mp4,95.5,short\n');
    expect(videos).not.toContain('lamps');
    const [b] = await readImport(join(dir, 'rel'));
    expect(b!.items.find((i) => i.sampleId === '001-1')).toMatchObject({ videoId: 'fFjv93ACGo8', videoFile: 'fFjv93ACGo8.mp4', durationS: 95.5, durationBucket: 'short' });
    expect(b!.items.find((i) => i.sampleId === '001-1')?.question ?? null).toBeNull();
    // A videos.csv that contradicts items.csv is refused, naming file, line and field.
    scratch.write(
      'rv/labels/per_item.csv',
      'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note\n001-1,M,S,16f,16,,A,A,1,,\n',
    );
    scratch.write(
      'rv/labels/items.csv',
      'split,sample_id,question,options,answer,references,task_type,duration_s,duration_bucket,domain,sub_category,video_id,video_file\nS,001-1,Q?,,A,,,,,,,v1,v1.mp4\n',
    );
    scratch.write('rv/provenance/videos.csv', 'split,sample_id,video_id,video_file,duration_s,duration_bucket\nS,001-1,v2,v2.mp4,,\n');
    await expectImportError(readImport(scratch.path('rv')), { file: 'videos.csv', line: 2, field: 'videoId', reason: /contradicts labels\/items.csv/ });
  });

  it('an items.csv row contradicting per_item.csv, or a bad options cell, is rejected naming the line', async () => {
    const perItem = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note\n001-1,M,S,16f,16,,A,A,1,,\n';
    const head = 'split,sample_id,question,options,answer,references,task_type,duration_s,duration_bucket,domain,sub_category,video_id,video_file\n';
    scratch.write('r1/labels/per_item.csv', perItem);
    scratch.write('r1/labels/items.csv', `${head}S,001-1,Q?,"[""x"",""y""]",B,,,,,,,,\n`);
    await expectImportError(readImport(scratch.path('r1')), { file: 'items.csv', line: 2, field: 'answer', reason: /contradicts labels\/per_item.csv/ });
    scratch.write('r2/labels/per_item.csv', perItem);
    scratch.write('r2/labels/items.csv', `${head}S,001-1,Q?,not json,A,,,,,,,,\n`);
    await expectImportError(readImport(scratch.path('r2')), { file: 'items.csv', line: 2, field: 'options' });
  });
});

describe('per_item.csv is detected without --format', () => {
  it('columns in any order, and a quoted header', async () => {
    const shuffled = scratch.write(
      'a/per_item.csv',
      'config,sample_id,split,model,predicted_option,ground_truth_option,correct,frame_count,pixel_count,source_tag,protocol_note\n16f,001-1,S,M,A,A,1,16,,,\n',
    );
    expect(await detectFormat(shuffled)).toBe('per-item-csv');
    const [b] = await readImport(shuffled);
    expect(b!.responses.map((r) => [r.model, r.split, r.sampleId, r.config, r.pred, r.correct])).toEqual([['M', 'S', '001-1', '16f', 'A', true]]);
    const quoted = scratch.write(
      'b/per_item.csv',
      '"sample_id","model","split","config","frame_count","pixel_count","predicted_option","ground_truth_option","correct","source_tag","protocol_note"\n"001-1","M","S","16f","16","","B","A","0","",""\n',
    );
    expect(await detectFormat(quoted)).toBe('per-item-csv');
    const [q] = await readImport(quoted);
    expect(q!.responses.map((r) => [r.sampleId, r.pred, r.correct])).toEqual([['001-1', 'B', false]]);
  });
});
