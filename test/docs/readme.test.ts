/**
 * Keeps README.md honest against the code it documents: the two commands on top, every
 * registered CLI command (and no flag a command's --help does not know), every keyboard
 * shortcut of renderer/shortcuts.ts (and no invented one), the default codebook's pathway
 * keys, and every import format the importers accept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../electron/cli/commands/index';
import { FORMATS } from '../../electron/importers/index';
import { APP_SHORTCUTS, displayKey } from '../../renderer/shortcuts';
import { Codebook } from '../../shared/api/contract';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The body of a `## Title` section, up to the next `## ` heading. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${title}" section`);
  const next = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, next < 0 ? undefined : next);
}

/** Rows of the markdown tables in `text`, split into cells (`\|` inside a cell is kept). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replace(/\\\|/g, '|')),
    );
}

/** The `code` spans of a table cell. */
function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
}

describe('README.md', () => {
  it('opens with the title, and its first code block is the two commands', () => {
    expect(readme.split('\n')[0]).toBe('# Flipbook');
    // The first fenced block, wherever it sits, and nothing but the two commands in it.
    const block = /```sh\n([\s\S]*?)\n```/.exec(readme);
    expect(block, 'a ```sh block').not.toBeNull();
    const commands = block![1]!.split('\n').map((l) => l.replace(/#.*$/, '').trim());
    expect(commands).toEqual(['npm ci && npm start', 'npm ci && npm test']);
    // No prose before it but the title.
    expect(readme.slice(0, block!.index).trim()).toBe('# Flipbook');
  });

  it('the two commands are what package.json runs', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBeDefined();
    expect(pkg.scripts.test).toBeDefined();
    // Every npm script the README tells the reader to run exists.
    const mentioned = new Set([...readme.matchAll(/npm run ([a-z][a-z0-9:-]*)/g)].map((m) => m[1] ?? ''));
    expect(mentioned.size).toBeGreaterThan(0);
    for (const s of mentioned) expect(pkg.scripts, `npm run ${s}`).toHaveProperty([s]);
  });

  it('the CLI reference lists every registered command, and nothing else', () => {
    const rows = tableRows(section('CLI reference')).filter((r) => r[0] !== 'command');
    const documented = rows.map((r) => (codeSpans(r[0] ?? '')[0] ?? '').split(' ')[0]);
    expect(documented.sort()).toEqual(commands.map((c) => c.name).sort());
  });

  it('every --flag the README gives a command is one its --help documents', async () => {
    const byName = new Map(await Promise.all(commands.map(async (c) => [c.name, await c.load()] as const)));
    const uses: [string, string][] = [];
    // CLI reference rows: `name args…`
    for (const r of tableRows(section('CLI reference'))) {
      const usage = codeSpans(r[0] ?? '')[0] ?? '';
      const name = usage.split(' ')[0] ?? '';
      if (byName.has(name)) uses.push([name, usage]);
    }
    // Worked examples: `npx flipbook <name> …` lines, with `\` continuations joined.
    const joined = readme.replace(/\\\n\s*/g, ' ');
    for (const m of joined.matchAll(/npx flipbook ([a-z-]+)([^\n#]*)/g)) uses.push([m[1] ?? '', m[2] ?? '']);
    expect(uses.length).toBeGreaterThan(commands.length);
    for (const [name, text] of uses) {
      const cmd = byName.get(name);
      expect(cmd, `README runs unknown command "${name}"`).toBeDefined();
      for (const flag of text.match(/--[a-z][a-z-]*/g) ?? []) {
        expect(cmd!.help, `${name} ${flag}`).toMatch(new RegExp(`${flag}(?![a-z-])`));
      }
    }
  });

  it('the shortcut table has every key of renderer/shortcuts.ts with its action, and no other', () => {
    const rows = tableRows(section('Keyboard shortcuts'));
    const appRows = rows.filter((r) => r.length === 3 && /^(global|queue|item)$/.test(r[1] ?? ''));
    // A key may act in more than one scope (ArrowDown: queue row, evidence span): one row each.
    const table = new Map(appRows.map((r) => [`${codeSpans(r[0] ?? '')[0] ?? ''} ${r[1]}`, { scope: r[1], action: r[2] }]));
    for (const s of APP_SHORTCUTS) {
      const row = table.get(`${displayKey(s.key)} ${s.scope}`);
      expect(row, `shortcut ${displayKey(s.key)} (${s.scope})`).toBeDefined();
      expect(row).toEqual({ scope: s.scope, action: s.action });
    }
    expect(table.size).toBe(APP_SHORTCUTS.length);
  });

  it('lists the default codebook pathway keys (toggle and Shift+key primary)', () => {
    const codebook = Codebook.parse(JSON.parse(fs.readFileSync(path.join(repoRoot, 'assets/codebook.json'), 'utf8')));
    const rows = tableRows(section('Keyboard shortcuts'));
    for (const p of codebook.pathways) {
      if (!p.shortcut) continue;
      const row = rows.find((r) => codeSpans(r[1] ?? '').includes(p.id));
      expect(row, `pathway ${p.id}`).toBeDefined();
      expect(codeSpans(row![0] ?? '')).toEqual([p.shortcut, `Shift+${p.shortcut.toUpperCase()}`]);
    }
  });

  it('names every import format, each with a worked import command', () => {
    const importing = section('Importing results');
    for (const f of FORMATS) expect(importing, f).toContain(`\`${f}\``);
    expect(importing.match(/npx flipbook import /g)?.length ?? 0).toBeGreaterThanOrEqual(8);
  });
});
