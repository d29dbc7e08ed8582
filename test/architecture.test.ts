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
        if (layer === null && (spec.startsWith('node:') || spec === 'electron' || spec === 'better-sqlite3' || /^(fs|path|child_process|os)$/.test(spec))) bad.push(`${f}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('Node services in electron/ never import Electron (they run under plain Node, the CLI and web mode)', () => {
    const serviceDirs = ['store', 'importers', 'release', 'frames', 'media', 'jobs', 'sample', 'cli', 'server', 'services', 'settings', 'sync', 'team'];
    const bad: string[] = [];
    for (const d of serviceDirs) {
      for (const f of filesUnder(path.join('electron', d))) {
        for (const spec of importsOf(f)) {
          if (spec === 'electron' || spec.startsWith('electron/')) bad.push(`${f}: ${spec}`);
          const layer = resolvesInto(f, spec);
          if (layer === 'renderer' || layer === 'test') bad.push(`${f}: ${spec}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('the spec lives in the repo (docs/)', () => {
  const sources = ['electron', 'shared', 'renderer', 'scripts', 'bin', 'test'].flatMap((d) => filesUnderAny(d));

  function filesUnderAny(dir: string): string[] {
    const abs = path.join(root, dir);
    let entries: string[];
    try {
      entries = readdirSync(abs);
    } catch {
      return [];
    }
    return entries.flatMap((e) => {
      const rel = path.join(dir, e);
      if (statSync(path.join(root, rel)).isDirectory()) return e === 'node_modules' || e === 'fixtures' ? [] : filesUnderAny(rel);
      return /\.(ts|tsx|js|cjs|mjs|py)$/.test(e) ? [rel] : [];
    });
  }

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
