// A release's annotations/ files and its zip, rule by rule (electron/importers/release-layout.ts,
// docs/release-format.md): each pathways.csv and evidence_spans.csv field at its bounds, the
// codebook's shape, a zip whose entries would land outside the folder, each zip limit at its
// exact value, and a zip of the release folder itself.
import { zipSync, strToU8, type Zippable } from 'fflate';
import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readRelease, unzipTo, type ZipLimits } from '../../../electron/importers/release-layout';
import { Scratch, expectImportError, refusal } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const PER_ITEM = [
  'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note',
  '001-1,M,S,16f,16,,B,B,1,t,',
  '001-1,M,S,textonly,0,,A,B,0,t,',
  '',
].join('\n');
const PATHWAYS_HEADER = 'sample_id,model,split,annotator,status,primary_pathway,pathways,transition,notes,confidence,codebook_version,created_at,updated_at';
const pathway = (cells: Partial<Record<string, string>>): string => {
  const row: Record<string, string> = {
    sample_id: '001-1',
    model: 'M',
    split: 'S',
    annotator: 'ann',
    status: 'done',
    primary_pathway: 'p',
    pathways: 'p',
    transition: '16f>textonly',
    notes: '',
    confidence: '3',
    codebook_version: '1',
    created_at: '2025-01-01',
    updated_at: '2025-01-02',
    ...cells,
  };
  return `${PATHWAYS_HEADER}\n${PATHWAYS_HEADER.split(',')
    .map((c) => row[c])
    .join(',')}\n`;
};
const SPANS_HEADER = 'sample_id,model,split,annotator,start_s,end_s,label,covered_by';
const span = (start: string, end: string, who: Partial<Record<string, string>> = {}): string =>
  `${SPANS_HEADER}\n${who.sample_id ?? '001-1'},${who.model ?? 'M'},${who.split ?? 'S'},${who.annotator ?? 'ann'},${start},${end},l,16f\n`;

const release = (files: Record<string, string>): string => {
  const paths = scratch.freshFolder({ 'labels/per_item.csv': PER_ITEM, ...files });
  return paths['labels/per_item.csv']!.replace(/\/labels\/per_item\.csv$/, '');
};

describe("a release's annotations", () => {
  it('pathways.csv: every status the codebook knows, confidence 1 to 5 or empty, a transition <config>><config> or empty', async () => {
    for (const status of ['todo', 'in_progress', 'done', 'skipped', 'needs_review']) {
      const b = await readRelease(release({ 'annotations/pathways.csv': pathway({ status }) }));
      expect(b.annotations?.pathways.map((r) => r.status)).toEqual([status]);
    }
    for (const confidence of ['', '1', '5']) {
      const b = await readRelease(release({ 'annotations/pathways.csv': pathway({ confidence }) }));
      expect(b.annotations?.pathways.map((r) => r.confidence)).toEqual([confidence]);
    }
    for (const transition of ['', 'a>b', '32f_151k>textonly']) {
      const b = await readRelease(release({ 'annotations/pathways.csv': pathway({ transition }) }));
      expect(b.annotations?.pathways.map((r) => r.transition)).toEqual([transition]);
    }
    const refused = (cells: Partial<Record<string, string>>, field: string, reason: RegExp) =>
      expectImportError(readRelease(release({ 'annotations/pathways.csv': pathway(cells) })), { file: 'pathways.csv', line: 2, field, reason });
    for (const status of ['Done', 'finished', '']) await refused({ status }, 'status', /./);
    for (const confidence of ['0', '6', '12', '3.5', ' 3', 'x']) await refused({ confidence }, 'confidence', /^expected 1–5 or empty$/);
    for (const transition of ['a', '>b', 'a>', 'a>b>c', 'a>>b']) await refused({ transition }, 'transition', /^expected <config>><config>$/);
    for (const field of ['sample_id', 'model', 'split', 'annotator']) await refused({ [field]: '' }, field, /^empty$/);
  });

  it('evidence_spans.csv: seconds written as digits, an end at or after the start', async () => {
    for (const [start, end] of [
      ['0', '0'],
      ['1.5', '1.5'],
      ['2', '10.25'],
    ]) {
      const b = await readRelease(release({ 'annotations/evidence_spans.csv': span(start!, end!) }));
      expect(b.annotations?.evidenceSpans.map((r) => [r.start_s, r.end_s])).toEqual([[start, end]]);
    }
    const refused = (start: string, end: string, field: string, reason: RegExp) =>
      expectImportError(readRelease(release({ 'annotations/evidence_spans.csv': span(start, end) })), { file: 'evidence_spans.csv', line: 2, field, reason });
    for (const bad of ['-1', '1.', '.5', '1e3', 'x1', '1x', '1.5.2', '']) await refused(bad, '20', 'start_s', /^expected seconds ≥ 0$/);
    await refused('1', 'x', 'end_s', /^expected seconds ≥ 0$/);
    await refused('2', '1.999', 'end_s', /^end_s before start_s$/);
    for (const field of ['sample_id', 'model', 'split', 'annotator']) {
      await expectImportError(readRelease(release({ 'annotations/evidence_spans.csv': span('1', '2', { [field]: '' }) })), {
        file: 'evidence_spans.csv',
        line: 2,
        field,
        reason: /^empty$/,
      });
    }
  });

  it('codebook.json: an id, a version, and pathways each with an id and a label', async () => {
    const ok = { id: 'cb', version: '2', pathways: [{ id: 'p', label: 'P', extra: true }] };
    const b = await readRelease(release({ 'annotations/codebook.json': JSON.stringify(ok) }));
    expect(b.annotations?.codebook).toEqual(ok);
    for (const bad of [
      { ...ok, id: 1 },
      { ...ok, version: null },
      { ...ok, pathways: [{ id: '', label: 'P' }] },
      { ...ok, pathways: [{ id: 'p' }] },
      { id: 'cb', version: 1 },
    ]) {
      const e = await refusal(readRelease(release({ 'annotations/codebook.json': JSON.stringify(bad) })));
      expect([e.file.endsWith('annotations/codebook.json'), e.line], JSON.stringify(bad)).toEqual([true, 0]);
    }
    await expectImportError(readRelease(release({ 'annotations/codebook.json': '{"id": ' })), { file: 'codebook.json', line: 0, field: '', reason: /^malformed JSON: / });
  });
});

describe("a release folder's other rules", () => {
  it('an annotation file missing a column, or a row of another width, is refused naming where', async () => {
    const noStatus = pathway({}).replace(',status,', ',').replace(',done,', ',');
    await expectImportError(readRelease(release({ 'annotations/pathways.csv': noStatus })), {
      file: 'pathways.csv',
      line: 1,
      field: 'status',
      reason: /^missing required header "status"$/,
    });
    await expectImportError(readRelease(release({ 'annotations/pathways.csv': pathway({}).replace(/\n$/, ',extra\n') })), {
      file: 'pathways.csv',
      line: 2,
      field: '',
      reason: /^malformed row: 14 fields, header has 13$/,
    });
  });

  it('names a file by the folder, or by the zip with `!`', async () => {
    const bad = { 'annotations/pathways.csv': pathway({ status: 'x' }) };
    const dir = release(bad);
    const inFolder = await refusal(readRelease(dir));
    expect(inFolder.file).toBe(`${dir}/annotations/pathways.csv`);
    const zip = zipOf({ 'labels/per_item.csv': PER_ITEM, ...bad });
    expect((await refusal(readRelease(zip))).file).toBe(`${zip}!annotations/pathways.csv`);
  });

  it('an annotations folder with no files gives empty annotations; no folder gives none', async () => {
    const empty = release({ 'annotations/readme.txt': 'nothing yet' });
    expect((await readRelease(empty)).annotations).toEqual({ pathways: [], evidenceSpans: [] });
    expect((await readRelease(release({}))).annotations).toBeUndefined();
  });

  it('configs.json: an entry without frames or pixel_count takes them from per_item.csv; an explicit null is kept', async () => {
    const perItem = PER_ITEM.replace('001-1,M,S,16f,16,,B,B,1,t,', '001-1,M,S,16f_151k,16,150528,B,B,1,t,');
    const configs = (entry: object): string => JSON.stringify({ '16f_151k': entry });
    const read = async (entry: object) =>
      (await readRelease(release({ 'labels/per_item.csv': perItem, 'provenance/configs.json': configs(entry) }))).configs.find((c) => c.key === '16f_151k');
    expect(await read({ toolkit: 'lmms-eval' })).toMatchObject({ frames: 16, pixelCount: 150528, toolkit: 'lmms-eval' });
    expect(await read({ pixel_count: null })).toMatchObject({ frames: 16, pixelCount: null });
    expect(await read({ frames: 16, pixel_count: 150528, sampling: { policy: 'uniform-linspace', seed: 3, fps: 2 } })).toMatchObject({
      sampling: { policy: 'uniform-linspace', seed: 3, fps: 2 },
    });
  });

  it('items.csv: a context that does not parse is refused naming the column; the column may be absent', async () => {
    const header = 'split,sample_id,question,options,answer,references,task_type,duration_s,duration_bucket,domain,sub_category,video_id,video_file';
    const row = 'S,001-1,Q?,"[""a"",""b""]",B,,t,12.5,short,d,s,v,v.mp4';
    const b = await readRelease(release({ 'labels/items.csv': `${header}\n${row}\n` }));
    expect(b.items.find((i) => i.sampleId === '001-1')).toMatchObject({ question: 'Q?', options: ['a', 'b'], durationS: 12.5 });
    await expectImportError(readRelease(release({ 'labels/items.csv': `${header},context\n${row},not json\n` })), {
      file: 'items.csv',
      line: 2,
      field: 'context',
      reason: /./,
    });
  });
});

const LIMITS: ZipLimits = { maxEntryBytes: 1000, maxRatio: 10, ratioFloorBytes: 500, maxTotalBytes: 2500 };
/** A zip of the files given, stored (level 0) or deflated. */
const zipOf = (files: Record<string, string | Uint8Array>, level: 0 | 9 = 0): string =>
  scratch.freshFile('r.zip', zipSync(Object.fromEntries(Object.entries(files).map(([n, v]) => [n, [typeof v === 'string' ? strToU8(v) : v, { level }]])) as Zippable));
const bytes = (n: number, seed = 1): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 17) % 251);

describe("a release's zip", () => {
  it('refuses an entry whose path leaves the folder, naming it, and extracts nothing of it', async () => {
    for (const name of ['../escape.txt', 'a/../../escape.txt', '/abs.txt', 'C:/drive.txt', 'c:drive.txt']) {
      const dest = scratch.path(scratch.freshDir());
      const zip = zipOf({ 'ok.txt': 'fine', [name]: 'x' });
      await expectImportError(unzipTo(zip, dest), { file: zip, line: 0, field: name, reason: /^zip entry points outside the archive$/ });
    }
    // Names that only look like it stay inside.
    const dest = scratch.path(scratch.freshDir());
    await unzipTo(zipOf({ '..x/a.txt': 'a', 'x../b.txt': 'b', 'd/c:.txt': 'c', 'e/': '' }), dest);
    expect(readdirSync(dest).sort()).toEqual(['..x', 'd', 'x..']);
  });

  it('takes an entry of exactly each limit, and refuses one byte more', async () => {
    const dest = (): string => scratch.path(scratch.freshDir());
    const refused = async (zip: string, field: string, reason: RegExp): Promise<void> => {
      await expectImportError(unzipTo(zip, dest(), LIMITS), { file: zip, line: 0, field, reason });
    };
    // One entry: maxEntryBytes.
    await unzipTo(zipOf({ 'a.bin': bytes(1000) }), dest(), LIMITS);
    await refused(zipOf({ 'a.bin': bytes(1001) }), 'a.bin', /^entry inflates past 0 MiB \(the limit for one entry\)$/);
    // In total: maxTotalBytes, across entries.
    await unzipTo(zipOf({ 'a.bin': bytes(1000), 'b.bin': bytes(1000, 2), 'c.bin': bytes(500, 3) }), dest(), LIMITS);
    await refused(zipOf({ 'a.bin': bytes(1000), 'b.bin': bytes(1000, 2), 'c.bin': bytes(501, 3) }), 'c.bin', /^the zip inflates past 0 MiB in total$/);
    // The ratio: counted past ratioFloorBytes only, against the entry's compressed size.
    const zeros = (n: number): Uint8Array => new Uint8Array(n);
    await unzipTo(zipOf({ 'z.bin': zeros(500) }, 9), dest(), LIMITS);
    await refused(zipOf({ 'z.bin': zeros(501) }, 9), 'z.bin', /^entry inflates more than 10× its compressed size \(a zip bomb\?\)$/);
    // Stored bytes inflate 1×: far under the ratio whatever their size.
    await unzipTo(zipOf({ 's.bin': bytes(900) }), dest(), LIMITS);
  });

  it('refuses a damaged zip and one cut inside an entry, naming the zip', async () => {
    const whole = zipSync({ 'a.txt': [strToU8('x'.repeat(2000)), { level: 9 }], 'b.txt': [strToU8('y'.repeat(10)), { level: 0 }] });
    const cut = scratch.freshFile('cut.zip', whole.subarray(0, 40));
    await expectImportError(unzipTo(cut, scratch.path(scratch.freshDir())), { file: cut, line: 0, field: 'a.txt', reason: /^damaged zip: invalid zip data$/ });
    // Stored bytes cut short: fflate refuses the end of the data.
    const stored = zipSync({ 's.txt': [strToU8('z'.repeat(5000)), { level: 0 }] });
    const short = scratch.freshFile('short.zip', stored.subarray(0, 1000));
    await expectImportError(unzipTo(short, scratch.path(scratch.freshDir())), { file: short, line: 0, field: 's.txt', reason: /^damaged zip: invalid zip data$/ });
    const garbled = Uint8Array.from(whole);
    for (let i = 35; i < 60; i++) garbled[i] = 0xff;
    const bad = scratch.freshFile('bad.zip', garbled);
    await expectImportError(unzipTo(bad, scratch.path(scratch.freshDir())), { file: bad, line: 0, field: 'a.txt', reason: /^(damaged zip|corrupt zip entry)/ });
  });

  it('reads a zip of the release folder itself, and names what is missing when it holds more than the one folder', async () => {
    const inFolder = zipOf({ 'rel/labels/per_item.csv': PER_ITEM, 'rel/provenance/': '' });
    const b = await readRelease(inFolder);
    expect(b.responses.map((r) => r.config)).toEqual(['16f', 'textonly']);
    expect(b.run.sourcePath).toBe(inFolder);
    // Two release folders: which one was meant is not for the reader to guess.
    const two = zipOf({ 'rel/labels/per_item.csv': PER_ITEM, 'rel2/labels/per_item.csv': PER_ITEM });
    await expectImportError(readRelease(two), { file: two, line: 0, field: 'labels/per_item.csv', reason: /^missing: not a release folder$/ });
    const none = zipOf({ 'readme.txt': 'x' });
    await expectImportError(readRelease(none), { file: none, line: 0, field: 'labels/per_item.csv', reason: /^missing: not a release folder$/ });
  });
});
