/**
 * The per_item.csv reader's row code: one tokenized row's fields (csv-tokenize.ts offsets)
 * checked and decoded into the cells of its (model, split, config) column
 * (per-item-column.ts), each string field interned per table (per-item-intern.ts).
 *
 * Cold start matters (a CLI import runs this once, in a fresh process): the per-row checks keep
 * their rare paths (a new value, an error) in separate methods, so `row` stays small and V8
 * optimises it early (docs/performance.md "Import at lab scale").
 */
import { ImportError } from './errors';
import { checkId, checkText } from './text-input';
import { dataView, grow32, same } from './per-item-bytes';
import { Col, LETTERS, sameCell } from './per-item-column';
import { configError, countBytes, parseCount, parseFrameIndices, parseUnit, type ConfigSeen } from './per-item-fields';
import type { Layout } from './per-item-header';
import { Table } from './per-item-intern';

/** The items of one split: the sample-id table plus, per item, its ground truth. */
export interface Split {
  ids: Table;
  /** Per item number: ground-truth letter index, −1 none yet. */
  gt: Int32Array<ArrayBuffer>;
  /** Per item number: line of its first ground truth, or of its first row while it has none. */
  line: Int32Array<ArrayBuffer>;
}

/**
 * The row checks and the cells' columns. One `row(base)` call per tokenized row; the rare
 * paths (a new value, an error) are separate methods, so the per-row code stays small.
 */
export class Rows {
  offs: Int32Array = new Int32Array(0);
  private dv: DataView;
  quoted: string[] = [];
  readonly models: Table;
  readonly splitNames: Table;
  readonly configNames: Table;
  readonly tags: Table;
  readonly notes: Table;
  readonly splits: Split[] = [];
  readonly configs: ConfigSeen[] = [];
  readonly columns: Col[] = [];
  readonly answered: { split: number; item: number }[] = [];
  inconsistent = 0;
  duplicates = 0;
  private prevM = -1;
  private prevS = -1;
  private prevC = -1;
  /**
   * The columns of the current (model, split): per config number, its index in `columns` + 1
   * (0 = none yet). Typed, not an array of Cols per (model, split): those arrays took
   * different element kinds (holey when a config first came out of order), and the read in
   * `row` deoptimised on each new kind.
   */
  private cols: Int32Array<ArrayBuffer> = new Int32Array(0);
  private colsM = -1;
  private colsS = -1;
  private readonly grid = new Map<number, Int32Array<ArrayBuffer>>();
  private readonly iSample: number;
  private readonly iModel: number;
  private readonly iSplit: number;
  private readonly iConfig: number;
  private readonly iFc: number;
  private readonly iPc: number;
  private readonly iPred: number;
  private readonly iGt: number;
  private readonly iCorrect: number;
  private readonly iTag: number;
  private readonly iNote: number;
  private readonly optional: boolean;
  /** model and split are neighbours: the previous row's bytes of both. */
  private readonly msAdjacent: boolean;
  private msStart = 0;
  private msLen = -1;
  /** config, frame_count and pixel_count are neighbours: each distinct span of them, checked once. */
  private readonly cfgAdjacent: boolean;
  private readonly configSpans: Table;
  private readonly spanConfig: number[] = [];

  constructor(
    private buf: Buffer,
    private readonly file: string,
    private readonly layout: Layout,
    private readonly overrideModel: string | null,
    private readonly overrideSplit: string | null,
  ) {
    this.dv = dataView(buf);
    this.models = new Table(buf, true);
    this.splitNames = new Table(buf, true);
    this.configNames = new Table(buf, true);
    this.tags = new Table(buf, false);
    this.notes = new Table(buf, false);
    // The empty note is value 0 (a cell's note is its value − 1): every row then interns its
    // note, empty or not, instead of a branch first taken at a file's first note — often
    // thousands of rows in, after V8 had optimised `row`, which that branch deoptimised.
    this.notes.bytes(0, 0);
    // Field f's start is at base + 2 + 2f: each column's offset within a row record.
    const at = (i: number): number => 2 + 2 * i;
    const x = layout.idx;
    this.iSample = at(x.sample_id);
    this.iModel = at(x.model);
    this.iSplit = at(x.split);
    this.iConfig = at(x.config);
    this.iFc = at(x.frame_count);
    this.iPc = at(x.pixel_count);
    this.iPred = at(x.predicted_option);
    this.iGt = at(x.ground_truth_option);
    this.iCorrect = at(x.correct);
    this.iTag = at(x.source_tag);
    this.iNote = at(x.protocol_note);
    // With --model or --split the bytes still tell when the row's own pair changes: the pair
    // looked up is then the override, whichever bytes the row holds.
    this.msAdjacent = x.split === x.model + 1;
    this.cfgAdjacent = x.frame_count === x.config + 1 && x.pixel_count === x.frame_count + 1;
    this.configSpans = new Table(buf, true);
    this.optional = x.score >= 0 || x.confidence >= 0 || x.margin >= 0 || x.latency_s >= 0 || x.frame_indices >= 0;
  }

  /** The reader moved on to the file's next window, held in `buf`: see Table.moved. */
  moved(buf: Buffer): void {
    const dv = dataView(buf);
    this.buf = buf;
    this.dv = dv;
    for (const t of [this.models, this.splitNames, this.configNames, this.tags, this.notes, this.configSpans]) t.moved(buf, dv);
    for (const s of this.splits) s.ids.moved(buf, dv);
    for (const c of this.columns) c.tagLen = -1;
    this.msLen = -1;
  }

  /** The field at offs[o] as a string (slow paths and messages). */
  str(o: number): string {
    const s = this.offs[o]!;
    return s < 0 ? this.quoted[this.offs[o + 1]!]! : this.buf.toString('utf8', s, this.offs[o + 1]);
  }

  empty(o: number): boolean {
    const s = this.offs[o]!;
    return s < 0 ? this.quoted[this.offs[o + 1]!] === '' : this.offs[o + 1] === s;
  }

  intern(t: Table, o: number): number {
    const s = this.offs[o]!;
    return s < 0 ? t.string(this.quoted[this.offs[o + 1]!]!) : t.bytes(s, this.offs[o + 1]!);
  }

  /** A letter A–H as 0–7, −1 for empty, −2 for anything else. */
  letter(o: number): number {
    const s = this.offs[o]!;
    if (s < 0) {
      const v = this.quoted[this.offs[o + 1]!]!;
      if (v === '') return -1;
      const c = v.length === 1 ? v.charCodeAt(0) - 65 : -1;
      return c >= 0 && c <= 7 ? c : -2;
    }
    const len = this.offs[o + 1]! - s;
    if (len === 0) return -1;
    const c = len === 1 ? this.buf[s]! - 65 : -1;
    return c >= 0 && c <= 7 ? c : -2;
  }

  count(o: number): number {
    const s = this.offs[o]!;
    return s < 0 ? parseCount(this.quoted[this.offs[o + 1]!]!) : countBytes(this.buf, s, this.offs[o + 1]!);
  }

  /** The row whose record starts at offs[base]. */
  row(base: number): void {
    const offs = this.offs;
    const file = this.file;
    const line = offs[base]!;
    if (offs[base + 1] !== this.layout.width) throw new ImportError(file, line, '', `malformed row: ${offs[base + 1]} fields, header has ${this.layout.width}`);
    if (this.layout.copies) this.checkCopies(base, line);
    if (this.empty(base + this.iSample)) throw new ImportError(file, line, 'sample_id', 'empty');
    this.names(base, line);
    const m = this.prevM;
    const s = this.prevS;
    const c = this.prevC;
    const split = this.splits[s]!;
    const item = this.intern(split.ids, base + this.iSample);
    if (split.ids.added) this.newItem(split, item, line);

    const pred = this.letter(base + this.iPred);
    if (pred === -2) this.badLetter(base + this.iPred, line, 'predicted_option');
    const gt = this.letter(base + this.iGt);
    if (gt === -2) this.badLetter(base + this.iGt, line, 'ground_truth_option');
    let correct: number;
    const co = base + this.iCorrect;
    const cs = offs[co]!;
    const cc = cs >= 0 && offs[co + 1] === cs + 1 ? this.buf[cs]! - 48 : -1;
    if (cc === 0 || cc === 1) correct = cc;
    else correct = this.correctSlow(co, line);
    let score = NaN;
    let confidence = NaN;
    let margin = NaN;
    let latencyMs = NaN;
    let frames: number[] | null = null;
    if (this.optional) {
      const x = this.layout.idx;
      const num = (i: number, field: string, max: number): number =>
        i < 0 || this.empty(base + 2 + 2 * i) ? NaN : parseUnit(file, line, field, this.str(base + 2 + 2 * i), 0, max);
      score = num(x.score, 'score', 1);
      confidence = num(x.confidence, 'confidence', 1);
      margin = num(x.margin, 'margin', 1);
      latencyMs = num(x.latency_s, 'latency_s', Number.MAX_VALUE) * 1000;
      frames = x.frame_indices >= 0 ? parseFrameIndices(file, line, this.str(base + 2 + 2 * x.frame_indices)) : null;
    }
    if (correct < 0 && score !== score) {
      throw new ImportError(file, line, 'correct', 'empty, and no score: a row needs 0/1 (MCQA) or a score (open-ended)');
    }
    // Kept as the file says (the release's scripts read `correct`), but worth a warning.
    if (gt >= 0 && correct >= 0 && pred >= 0 && (pred === gt ? 1 : 0) !== correct) this.inconsistent++;
    if (gt >= 0) {
      const had = split.gt[item]!;
      if (had < 0) {
        split.gt[item] = gt;
        split.line[item] = line;
        this.answered.push({ split: s, item });
      } else if (had !== gt) this.twoAnswers(s, item, gt, line);
    }
    if (frames !== null && frames.length > 0 && this.configs[c]!.frames === 0) {
      throw new ImportError(file, line, 'frame_indices', `config ${this.configNames.strings[c]} sees no frames (frame_count 0) but the row lists ${frames.length} frame indices`);
    }

    // The (model, split, config) column: rows usually keep (model, split) and cycle configs;
    // `cols` follows (model, split) in modelSplit, the path names() takes when they change.
    const cols = this.cols;
    // Bounds checked first: a read past the end of `cols` (a new config) deoptimised this method.
    const ci = c < cols.length ? cols[c]! - 1 : -1;
    const col = ci >= 0 ? this.columns[ci]! : this.newColumn(m, s, c);
    // A column's source tag (and note) usually repeats from its previous cell.
    const to = base + this.iTag;
    let tag: number;
    const ts = offs[to]!;
    if (ts >= 0 && offs[to + 1]! - ts === col.tagLen && same(this.dv, ts, col.tagStart, col.tagLen)) tag = col.tagId;
    else if (this.empty(to)) tag = -1;
    else {
      tag = this.intern(this.tags, to);
      this.checkAdded(this.tags, tag, line, 'source_tag');
      if (ts >= 0) {
        col.tagStart = ts;
        col.tagLen = offs[to + 1]! - ts;
        col.tagId = tag;
      }
    }
    const noteId = this.intern(this.notes, base + this.iNote);
    this.checkAdded(this.notes, noteId, line, 'protocol_note');
    const note = noteId - 1;
    // Unconditional: grow32 returns `pos` itself while it has room. A branch taken only when a
    // column first outgrows it ran first after V8 had optimised this method, deoptimising it.
    col.pos = grow32(col.pos, item);
    const prev = col.pos[item]! - 1;
    if (prev >= 0) {
      // The same (model, split, sample, config) again: an exact repeat is ignored (a warning);
      // anything else is refused, naming the first field that differs.
      sameCell(file, line, col, prev, split.ids.strings[item]!, pred, correct, score, gt, confidence, margin, latencyMs);
      this.duplicates++;
      return;
    }
    const k = col.length++;
    col.pos[item] = k + 1;
    if (k >= col.item.length) col.reserve(k, split.ids.strings.length);
    col.item[k] = item;
    col.pred[k] = pred;
    col.gt[k] = gt;
    col.tag[k] = tag;
    col.note[k] = note;
    col.correct[k] = correct;
    col.line[k] = line;
    if (this.optional) {
      if (col.score) col.score[k] = score;
      if (col.confidence) col.confidence[k] = confidence;
      if (col.margin) col.margin[k] = margin;
      if (col.latencyMs) col.latencyMs[k] = latencyMs;
      if (col.frames) col.frames[k] = frames;
    }
  }

  /**
   * Checks the text of a value `t` has just added. One method for tags and notes on purpose:
   * V8 keeps type feedback per function, so the check a file's first new tag runs also
   * prepares the (inlined) one for its first note, which may come long after `row` is optimised.
   */
  private checkAdded(t: Table, id: number, line: number, field: string): void {
    if (t.added) checkText(t.strings[id]!, this.file, line, field);
  }

  private checkCopies(base: number, line: number): void {
    const values: string[] = [];
    for (let f = 0; f < this.layout.width; f++) values.push(this.str(base + 2 + 2 * f));
    this.layout.header.check(values, line);
  }

  /** Looks up model, split and config (and checks frame_count / pixel_count) into prevM/S/C. */
  /**
   * Looks up model, split and config (and checks frame_count / pixel_count) into
   * prevM/S/C. In the release's column order model and split are neighbours, and so are
   * config, frame_count and pixel_count: the first pair usually repeats the previous row's
   * bytes, the second is one of a few byte spans already checked (one per config).
   */
  private names(base: number, line: number): void {
    const offs = this.offs;
    let msSame = false;
    if (this.msAdjacent) {
      const from = offs[base + this.iModel]!;
      if (from >= 0 && offs[base + this.iSplit]! >= 0) {
        const len = offs[base + this.iSplit + 1]! - from;
        msSame = len === this.msLen && same(this.dv, from, this.msStart, len);
        this.msStart = from;
        this.msLen = len;
      } else this.msLen = -1;
    }
    if (!msSame) this.modelSplit(base, line);
    if (this.cfgAdjacent && offs[base + this.iConfig]! >= 0 && offs[base + this.iFc]! >= 0 && offs[base + this.iPc]! >= 0) {
      const k = this.configSpans.bytes(offs[base + this.iConfig]!, offs[base + this.iPc + 1]!);
      const c = this.spanConfig[k];
      if (c === undefined) this.spanConfig[k] = this.config(base, line);
      else this.prevC = c;
    } else this.config(base, line);
  }

  private modelSplit(base: number, line: number): void {
    const file = this.file;
    let m: number;
    if (this.overrideModel !== null) m = this.models.string(this.overrideModel);
    else {
      if (this.empty(base + this.iModel)) throw new ImportError(file, line, 'model', 'empty');
      m = this.intern(this.models, base + this.iModel);
    }
    if (this.models.added) checkId(this.models.strings[m]!, file, line, 'model');
    let s: number;
    if (this.overrideSplit !== null) s = this.splitNames.string(this.overrideSplit);
    else {
      if (this.empty(base + this.iSplit)) throw new ImportError(file, line, 'split', 'empty');
      s = this.intern(this.splitNames, base + this.iSplit);
    }
    if (this.splitNames.added) {
      checkId(this.splitNames.strings[s]!, file, line, 'split');
      this.splits.push({ ids: new Table(this.buf, false), gt: new Int32Array(256).fill(-1), line: new Int32Array(256) });
    }
    this.prevM = m;
    this.prevS = s;
    if (m !== this.colsM || s !== this.colsS) this.colsOf(m, s);
  }

  private config(base: number, line: number): number {
    const file = this.file;
    if (this.empty(base + this.iConfig)) throw new ImportError(file, line, 'config', 'empty');
    const c = this.intern(this.configNames, base + this.iConfig);
    if (this.configNames.added) checkId(this.configNames.strings[c]!, file, line, 'config');
    // frame_count / pixel_count: the config's first row sets them, every row must agree.
    const fc = this.count(base + this.iFc);
    const pc = this.empty(base + this.iPc) ? -1 : this.count(base + this.iPc);
    const seen = this.configs[c];
    if (seen === undefined || seen.frames !== fc || seen.pixelCount !== pc || fc !== fc || pc !== pc) {
      this.configs[c] = configError(file, line, seen, this.configNames.strings[c]!, this.str(base + this.iFc), this.str(base + this.iPc));
    }
    this.prevC = c;
    return c;
  }

  private newItem(split: Split, item: number, line: number): void {
    checkId(split.ids.strings[item]!, this.file, line, 'sample_id');
    split.gt = grow32(split.gt, item, -1);
    split.line = grow32(split.line, item);
    split.line[item] = line;
  }

  private badLetter(o: number, line: number, field: string): never {
    throw new ImportError(this.file, line, field, `expected a letter A–H or empty, got ${JSON.stringify(this.str(o))}`);
  }

  private correctSlow(o: number, line: number): number {
    if (this.empty(o)) return -1;
    const v = this.str(o);
    if (v === '1' || v === '0') return v === '1' ? 1 : 0;
    throw new ImportError(this.file, line, 'correct', `expected 0 or 1, got ${JSON.stringify(v)}`);
  }

  private twoAnswers(s: number, item: number, gt: number, line: number): never {
    const split = this.splits[s]!;
    throw new ImportError(
      this.file,
      line,
      'ground_truth_option',
      `duplicate item (split ${this.splitNames.strings[s]}, sample ${split.ids.strings[item]}) with a different value: ` +
        `${LETTERS[gt]} here, ${LETTERS[split.gt[item]!]} at line ${split.line[item]}`,
    );
  }

  private colsOf(m: number, s: number): void {
    this.cols = this.grid.get(m * 65536 + s) ?? new Int32Array(0);
    this.colsM = m;
    this.colsS = s;
  }

  /** A new column of the current (model, split) (`cols` is theirs: modelSplit keeps it so). */
  private newColumn(m: number, s: number, c: number): Col {
    const col = new Col(this.models.strings[m]!, this.splitNames.strings[s]!, this.configNames.strings[c]!, m, s, c, this.layout.idx);
    const cols = grow32(this.cols, c);
    cols[c] = this.columns.push(col);
    this.cols = cols;
    this.grid.set(m * 65536 + s, cols);
    return col;
  }
}
