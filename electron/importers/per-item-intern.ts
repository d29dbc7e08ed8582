/**
 * String interning for the per_item.csv reader: each string field's distinct values, numbered
 * in order of first appearance and looked up by their bytes before any Map (docs/performance.md
 * "Import at lab scale").
 */
import { dataView, grow32, same } from './per-item-bytes';

/** Distinct values a Table compares byte by byte before its Map (names and configs are few). */
const FEW = 8;

/**
 * The distinct values of one string field, numbered in order of first appearance. Unquoted
 * values are looked up by their raw bytes — the latin1 string of the byte slice, so a value
 * seen before costs a short substring and a Map lookup, and is decoded as UTF-8 only the first
 * time; quoted ones by their decoded string. Every value also has its decoded string in
 * `ids`, so both spellings of a value share one number.
 */
export class Table {
  readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();
  private readonly raw = new Map<string, number>();
  /** Byte ranges of the first FEW distinct raw values, compared directly before any Map. */
  private readonly start = new Int32Array(FEW);
  private readonly len = new Int32Array(FEW);
  private readonly id = new Int32Array(FEW);
  private few = 0;
  /** The previous lookup's bytes and number: neighbouring rows often repeat a value. */
  lastStart = 0;
  lastLen = -1;
  lastId = -1;
  /** Whether the last lookup added a new value (its checks run once, at its first line). */
  added = false;
  /**
   * Per value (many-valued tables): the bytes it was first seen as (length −1: first seen
   * quoted), and the value that followed it last time. A release lists each (model, split)'s
   * items in the same order, so after the first model the successor is the right guess and
   * spares the Map lookup.
   */
  private vStart = new Int32Array(0);
  private vLen = new Int32Array(0);
  private next = new Int32Array(0);

  private dv: DataView;

  /** `fewValues`: the field has a handful of values (names, configs), compared before the Map. */
  constructor(
    private buf: Buffer,
    private readonly fewValues: boolean,
  ) {
    this.dv = dataView(buf);
  }

  /**
   * The reader moved on to the file's next window (readPerItemCsv): every byte range kept so
   * far is gone, so each is forgotten; the values and their numbers stay. A value's range is
   * kept again where it is next seen.
   */
  moved(buf: Buffer, dv: DataView): void {
    this.buf = buf;
    this.dv = dv;
    this.lastLen = -1;
    this.few = 0;
    this.vLen.fill(-1);
  }

  /** The value of bytes [s, e) (unquoted). */
  bytes(s: number, e: number): number {
    const buf = this.buf;
    const n = e - s;
    this.added = false;
    if (n === this.lastLen && same(this.dv, s, this.lastStart, n)) return this.lastId;
    let id = -1;
    if (this.fewValues) {
      for (let k = 0; k < this.few; k++) {
        if (this.len[k] === n && same(this.dv, s, this.start[k]!, n)) {
          id = this.id[k]!;
          break;
        }
      }
    } else if (this.lastId >= 0) {
      // No `g >= 0` test: an unknown successor is 0, a guess checked like any other. A branch
      // first taken when a second model repeats the first one's items (after V8 had optimised
      // this) deoptimised it.
      const g = this.next[this.lastId]!;
      if (this.vLen[g] === n && same(this.dv, s, this.vStart[g]!, n)) id = g;
    }
    if (id < 0) {
      const key = buf.toString('latin1', s, e);
      const found = this.raw.get(key);
      if (found !== undefined) id = found;
      else {
        const value = buf.toString('utf8', s, e);
        const known = this.ids.get(value);
        id = known ?? this.push(value);
        this.added = known === undefined;
        this.raw.set(key, id);
      }
      // The value's bytes, for the comparisons above: a new value's, or (after `moved`) a
      // known one's in the current window.
      if (this.fewValues) {
        if (this.few < FEW) {
          this.start[this.few] = s;
          this.len[this.few] = n;
          this.id[this.few++] = id;
        }
      } else if (this.vLen[id] === -1) {
        this.vStart[id] = s;
        this.vLen[id] = n;
      }
    }
    if (!this.fewValues && this.lastId >= 0) this.next[this.lastId] = id;
    this.lastStart = s;
    this.lastLen = n;
    this.lastId = id;
    return id;
  }

  /** The value of a quoted field. */
  string(value: string): number {
    const known = this.ids.get(value);
    this.added = known === undefined;
    this.lastLen = -1;
    this.lastId = -1;
    return known ?? this.push(value);
  }

  private push(value: string): number {
    const id = this.strings.length;
    if (id >= this.next.length) {
      this.vStart = grow32(this.vStart, id);
      this.vLen = grow32(this.vLen, id, -1);
      this.next = grow32(this.next, id);
    }
    this.strings.push(value);
    this.ids.set(value, id);
    return id;
  }
}
