// Enforces the layer rules of docs/architecture.md on the import statements
// themselves (the per-layer tsconfigs catch type-level leaks; this catches value imports
// such as `import fs from 'node:fs'` in shared/ or `electron` in a service).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..');

function filesUnder(dir: string): string[] {
  const abs = path.join(root, dir);
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(abs);
  } catch {
    return [];
  }
  for (const e of entries) {
    const p = path.join(abs, e);
    if (statSync(p).isDirectory()) out = out.concat(filesUnder(path.join(dir, e)));
    else if (/\.(ts|tsx)$/.test(e)) out.push(path.join(dir, e));
  }
  return out;
}

function importsOf(file: string): string[] {
  const src = readFileSync(path.join(root, file), 'utf8');
  const specs: string[] = [];
  const re = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;
  for (const m of src.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3])!);
  return specs;
}

function resolvesInto(file: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const target = path.normalize(path.join(path.dirname(file), spec));
  return target.split(path.sep)[0] ?? null;
}

describe('layer boundaries (docs/architecture.md)', () => {
  it('shared/ imports nothing outside shared/ (no Node, DOM, Electron, React)', () => {
    const bad: string[] = [];
    for (const f of filesUnder('shared')) {
      for (const spec of importsOf(f)) {
        const layer = resolvesInto(f, spec);
        const ok = layer === 'shared' || (layer === null && (spec === 'zod' || spec.startsWith('zod/')));
        if (!ok) bad.push(`${f}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('renderer/ imports only shared/ and browser libraries', () => {
    const bad: string[] = [];
    for (const f of filesUnder('renderer')) {
      for (const spec of importsOf(f)) {
        const layer = resolvesInto(f, spec);
        if (layer === 'electron' || layer === 'test') bad.push(`${f}: ${spec}`);
        if (layer === null && (spec.startsWith('node:') || spec === 'electron' || spec === 'better-sqlite3' || /^(fs|path|child_process|os)$/.test(spec)))
          bad.push(`${f}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('only electron/shell/ imports Electron; nothing in electron/ imports renderer/ or test/', () => {
    const bad: string[] = [];
    for (const f of filesUnder('electron')) {
      for (const spec of importsOf(f)) {
        const isElectron = spec === 'electron' || spec.startsWith('electron/');
        if (isElectron && roomOf(f) !== 'shell') bad.push(`${f}: ${spec}`);
        const layer = resolvesInto(f, spec);
        if (layer === 'renderer' || layer === 'test') bad.push(`${f}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

/**
 * The rooms of electron/ by job, lowest first (docs/architecture.md "Rooms of electron/"). A
 * room imports only rooms of a lower rank, so the graph has no cycle and no upward import; the
 * CLI, a thin front end over the same use cases as the app, never imports the contract's
 * handlers, the backend thread or the shell.
 */
const ROOM_RANK: Record<string, number> = {
  threads: 0,
  settings: 0,
  importers: 1,
  store: 2,
  media: 3,
  release: 3,
  sync: 4,
  frames: 4,
  derived: 4,
  sample: 4,
  jobs: 5,
  api: 6,
  host: 7,
  server: 7,
  cli: 8,
  shell: 8,
};
const CLI_NEVER = ['api', 'host', 'shell'];

function roomOf(file: string): string | null {
  const parts = path.normalize(file).split(path.sep);
  return parts[0] === 'electron' && parts.length > 2 ? parts[1]! : null;
}

describe('rooms of electron/ (docs/architecture.md)', () => {
  it('every folder of electron/ is a room with a rank, and no source sits at its top', () => {
    const entries = readdirSync(path.join(root, 'electron'));
    const folders = entries.filter((e) => statSync(path.join(root, 'electron', e)).isDirectory());
    expect(folders.filter((d) => !(d in ROOM_RANK))).toEqual([]);
    expect(entries.filter((e) => !folders.includes(e))).toEqual([]);
    expect(Object.keys(ROOM_RANK).filter((r) => !folders.includes(r))).toEqual([]);
  });

  it('a room imports only rooms of a lower rank, and the CLI no handler, host or shell module', () => {
    const bad: string[] = [];
    for (const f of filesUnder('electron')) {
      const from = roomOf(f)!;
      for (const spec of importsOf(f)) {
        if (!spec.startsWith('.')) continue;
        const to = roomOf(path.normalize(path.join(path.dirname(f), spec)));
        if (to === null || to === from) continue;
        if (!(ROOM_RANK[to]! < ROOM_RANK[from]!)) bad.push(`${f}: ${spec} (${from}, rank ${ROOM_RANK[from]}, imports ${to}, rank ${ROOM_RANK[to]})`);
        if (from === 'cli' && CLI_NEVER.includes(to)) bad.push(`${f}: ${spec} (the CLI calls use cases, not ${to}/)`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the checks see the imports they judge (a sample of known edges)', () => {
    // If the import pattern stopped matching, every rule above would pass vacuously.
    const edges = new Set(
      filesUnder('electron').flatMap((f) =>
        importsOf(f)
          .filter((s) => s.startsWith('.'))
          .map((s) => `${roomOf(f)}>${roomOf(path.normalize(path.join(path.dirname(f), s)))}`),
      ),
    );
    for (const e of ['shell>host', 'host>api', 'api>jobs', 'jobs>importers', 'cli>jobs', 'store>importers']) expect(edges).toContain(e);
    expect(filesUnder('electron/shell').flatMap(importsOf)).toContain('electron');
  });
});

describe('the spec lives in the repo (docs/)', () => {
  const sources = ['electron', 'shared', 'renderer', 'scripts', 'bin', 'test'].flatMap((d) => walk(d, /\.(ts|tsx|js|cjs|mjs|py)$/, new Set(['node_modules', 'fixtures'])));

  it('no source cites an issue number or the docs outside the repo', () => {
    const bad: string[] = [];
    for (const f of sources) {
      readFileSync(path.join(root, f), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // Spelled in two pieces so that this file does not match itself.
          if (new RegExp('iss' + 'ue #?[0-9]+').test(line) || line.includes('shared/' + 'docs')) bad.push(`${f}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(bad).toEqual([]);
  });

  it('every `docs/<page>.md §N` a source cites is a page and section that exist', () => {
    const bad: string[] = [];
    const sections = new Map<string, Set<string> | null>();
    const sectionsOf = (page: string): Set<string> | null => {
      if (!sections.has(page)) {
        let text: string | null = null;
        try {
          text = readFileSync(path.join(root, 'docs', page), 'utf8');
        } catch {
          text = null;
        }
        sections.set(page, text === null ? null : new Set([...text.matchAll(/^##+ (\d+)\./gm)].map((m) => m[1]!)));
      }
      return sections.get(page)!;
    };
    for (const f of [...sources, 'README.md']) {
      const text = readFileSync(path.join(root, f), 'utf8');
      for (const m of text.matchAll(/docs\/([a-z-]+\.md)(?: §(\d+))?/g)) {
        const s = sectionsOf(m[1]!);
        if (s === null) bad.push(`${f}: docs/${m[1]} does not exist`);
        else if (m[2] !== undefined && !s.has(m[2])) bad.push(`${f}: docs/${m[1]} has no §${m[2]}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

/**
 * File size (docs/architecture.md "File size"): a source file over MAX_LINES lines is split by
 * job, or its opening comment — the comment the file starts with, before any code — says why
 * it is not, on a line `@long-file <reason>`. Tests are not held to it: a test file grows by its
 * cases.
 */
const MAX_LINES = 600;
const SOURCE_DIRS = ['shared', 'electron', 'renderer', 'scripts', 'bin'];

/** The comment a file opens with (after a `#!` line), or '' when it starts with code. */
function openingComment(src: string): string {
  const text = src.replace(/^#![^\n]*\n/, '');
  return /^\s*(\/\*[\s\S]*?\*\/|(?:\/\/[^\n]*(?:\n|$)\s*)+)/.exec(text)?.[1] ?? '';
}

/** A stated reason: `@long-file` and then at least a few words on the same line. */
const statesWhyLong = (comment: string): boolean => /^[\s*/]*@long-file\s+\S.{15,}$/m.test(comment);

/** Files under `dir` (relative to the repo) whose names match `ext`, not descending into `skip`. */
function walk(dir: string, ext: RegExp, skip: ReadonlySet<string>): string[] {
  let entries: string[];
  try {
    entries = readdirSync(path.join(root, dir));
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const rel = path.join(dir, e);
    if (statSync(path.join(root, rel)).isDirectory()) return skip.has(e) ? [] : walk(rel, ext, skip);
    return ext.test(e) ? [rel] : [];
  });
}

const sourceFilesUnder = (dir: string): string[] => walk(dir, /\.(ts|tsx|js|cjs|mjs)$/, new Set(['node_modules']));

describe('file size (docs/architecture.md "File size")', () => {
  it(`no source file is over ${MAX_LINES} lines unless its opening comment says why (@long-file <reason>)`, () => {
    const files = SOURCE_DIRS.flatMap(sourceFilesUnder);
    expect(files.length).toBeGreaterThan(100);
    const bad: string[] = [];
    for (const f of files) {
      const src = readFileSync(path.join(root, f), 'utf8');
      const lines = src.split('\n').length - (src.endsWith('\n') ? 1 : 0);
      if (lines > MAX_LINES && !statesWhyLong(openingComment(src)))
        bad.push(`${f}: ${lines} lines; split it by job, or give the reason in its opening comment (@long-file <reason>)`);
    }
    expect(bad).toEqual([]);
  });

  it('a reason counts only as `@long-file <reason>` in the comment the file opens with', () => {
    // If these stopped holding, the rule above would pass files it should not.
    expect(statesWhyLong(openingComment('/**\n * The reader.\n *\n * @long-file one state machine: split, its states would be passed between files\n */\nexport {};\n'))).toBe(
      true,
    );
    expect(statesWhyLong(openingComment('// @long-file the generated table of every code point, one per line\nexport {};\n'))).toBe(true);
    expect(statesWhyLong(openingComment('#!/usr/bin/env node\n// @long-file the generated table of every code point, one per line\n'))).toBe(true);
    expect(statesWhyLong(openingComment('/** @long-file */\nexport {};\n'))).toBe(false);
    expect(statesWhyLong(openingComment('/** The reader. */\nexport {};\n'))).toBe(false);
    expect(statesWhyLong(openingComment('import x from "y";\n/** @long-file one state machine: split, its states would be passed between files */\n'))).toBe(false);
  });
});
