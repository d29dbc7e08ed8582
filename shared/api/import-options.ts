/**
 * The options of an import, one table for both front ends: `flipbook import` builds its
 * flags and --help from it, the app's import form its fields, and the `import:run` operation
 * its request. An option added here appears in all three (docs/formats.md describes what each
 * format reads).
 */
import * as z from 'zod';

/** Every format the importers read, listed only here (electron/importers/index.ts detects and dispatches them). */
export const IMPORT_FORMATS = [
  'release',
  'per-item-csv',
  'wide-csv',
  'lmms-eval',
  'vlmevalkit',
  'videomme-results',
  'mlvu-results',
  'videomme-parquet',
  'mlvu-meta',
  'scalegrid-jsonl',
  'scalegrid-cache',
  'avsd',
  'columns',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

const text = z.string().trim().min(1);

/** The option values (all optional); what the CLI flags and the form fields both fill. */
export const ImportOptionValues = z.object({
  format: z.enum(IMPORT_FORMATS).optional(),
  model: text.optional(),
  split: text.optional(),
  config: text.optional(),
  groundTruth: text.optional(),
  groundTruthSplit: text.optional(),
  matchedGrid: text.optional(),
  mainProtocol: text.optional(),
  columns: text.optional(),
});
export type ImportOptionValues = z.infer<typeof ImportOptionValues>;
export type ImportOptionKey = keyof ImportOptionValues;

export interface ImportOptionSpec {
  key: ImportOptionKey;
  /** The CLI flag, without `--`. */
  flag: string;
  /** Placeholder of the value in --help (`--model M`). */
  metavar: string;
  /** The form field's label. */
  label: string;
  kind: 'choice' | 'text' | 'path' | 'list';
  choices?: readonly string[];
  /** One sentence or two; the CLI wraps it, the form shows it under the field. */
  help: string;
  example?: string;
  /** Another option this one needs. */
  requires?: ImportOptionKey;
}

export const IMPORT_OPTIONS: readonly ImportOptionSpec[] = [
  {
    key: 'format',
    flag: 'format',
    metavar: 'F',
    label: 'Format',
    kind: 'choice',
    choices: IMPORT_FORMATS,
    help: 'skip detection and read the files as this format',
  },
  { key: 'model', flag: 'model', metavar: 'M', label: 'Model', kind: 'text', help: 'model name for files that do not name it', example: 'Qwen2.5-VL-7B' },
  {
    key: 'split',
    flag: 'split',
    metavar: 'S',
    label: 'Split',
    kind: 'text',
    help: "split name; {duration} is replaced by each item's Video-MME duration (V1_{duration} → V1_short, V1_medium, V1_long)",
    example: 'V1_{duration}',
  },
  { key: 'config', flag: 'config', metavar: 'C', label: 'Config', kind: 'text', help: 'config key for single-config files', example: '16f_151k' },
  {
    key: 'groundTruth',
    flag: 'ground-truth',
    metavar: 'G',
    label: 'Ground truth',
    kind: 'path',
    help: "a file giving the answers, for wide CSVs. Its answers reach only the split of the same name, and the release's V1_<duration> splits from a Video-MME v1 source (split videomme); rows without an answer keep correct empty and the summary counts them per split",
  },
  {
    key: 'groundTruthSplit',
    flag: 'ground-truth-split',
    metavar: 'MAP',
    label: 'Ground-truth split map',
    kind: 'text',
    help: 'which split of the ground-truth source answers which target split (comma-separated)',
    example: 'videomme=V1_{duration}',
    requires: 'groundTruth',
  },
  {
    key: 'matchedGrid',
    flag: 'matched-grid',
    metavar: 'L',
    label: 'Matched grid',
    kind: 'list',
    help: "the configs every model shares (comma-separated), stored as the project's matched grid with the import",
    example: '8f_151k,16f_151k,32f_151k',
  },
  {
    key: 'columns',
    flag: 'columns',
    metavar: 'MAP',
    label: 'Columns',
    kind: 'text',
    help: 'read any CSV/TSV/JSONL by naming its columns (role=column, comma-separated): sample_id and prediction required; answer, options, config, model, split, correct, score, question, video, task_type, confidence, latency_ms optional (docs/formats.md)',
    example: 'sample_id=qid,prediction=response,answer=gt,config=budget',
  },
  {
    key: 'mainProtocol',
    flag: 'main-protocol',
    metavar: 'P',
    label: 'Main protocol',
    kind: 'text',
    help: 'the protocol whose grid gives every headline number, stored with the import: a config variant tag (random for 64f_151k@random) or untagged for the configs without one (the default); the other protocols are compared with it',
    example: 'untagged',
  },
];

/** `a, b ,c` → ['a', 'b', 'c']. */
export const splitList = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * Checks that hold whatever the files say (the CLI reports them as usage errors, the app as
 * the job's error): a required companion option, a non-empty list.
 */
export function importOptionProblems(o: ImportOptionValues): string[] {
  const out: string[] = [];
  if (o.columns !== undefined && o.format !== undefined && o.format !== 'columns')
    out.push(`--columns reads the file by its columns: it cannot be combined with --format ${o.format}`);
  if (o.format === 'columns' && o.columns === undefined) out.push('--format columns needs --columns');
  for (const spec of IMPORT_OPTIONS) {
    if (spec.requires && o[spec.key] !== undefined && o[spec.requires] === undefined) {
      const needed = IMPORT_OPTIONS.find((x) => x.key === spec.requires);
      out.push(`--${spec.flag} needs --${needed?.flag ?? spec.requires}`);
    }
    const v = o[spec.key];
    if (spec.kind === 'list' && v !== undefined && splitList(v).length === 0) out.push(`--${spec.flag} needs at least one value`);
  }
  return out;
}

/** The options part of `flipbook import --help`, from the table. */
export function importOptionsHelp(width = 92): string {
  const indent = ' '.repeat(22);
  const lines: string[] = [];
  for (const o of IMPORT_OPTIONS) {
    const head = `  --${o.flag} ${o.metavar}`;
    const words = `${o.help}${o.choices ? `: ${o.choices.join(', ')}` : ''}${o.example ? `, e.g. ${o.example}` : ''}`.split(' ');
    const wrapped: string[] = [];
    let cur = '';
    for (const w of words) {
      if (cur !== '' && indent.length + cur.length + 1 + w.length > width) {
        wrapped.push(cur);
        cur = w;
      } else cur = cur === '' ? w : `${cur} ${w}`;
    }
    wrapped.push(cur);
    if (head.length < indent.length - 1) lines.push(head.padEnd(indent.length) + wrapped.shift());
    else lines.push(head);
    for (const w of wrapped) lines.push(indent + w);
  }
  return lines.join('\n');
}
