/**
 * `npm run bench`: runs every bench module present (release: benchRelease; frames:
 * benchFrames, when test/bench/frames.ts exists) one after another and prints ONE JSON object
 * on stdout. Progress goes to stderr; a module that fails reports its error in the JSON and
 * makes the exit code 1. `npm run bench -- release workspace` runs only the named modules.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Bench modules and the function each exports. */
const MODULES: { name: string; file: string; fn: string }[] = [
  { name: 'release', file: 'release.ts', fn: 'benchRelease' },
  { name: 'frames', file: 'frames.ts', fn: 'benchFrames' },
  { name: 'workspace', file: 'workspace.ts', fn: 'benchWorkspace' },
  { name: 'sync', file: 'sync.ts', fn: 'benchSync' },
  { name: 'cli', file: 'cli.ts', fn: 'benchCli' },
  { name: 'queue-scale', file: 'queue-scale.ts', fn: 'benchQueueScale' },
  { name: 'import-scale', file: 'import-scale.ts', fn: 'benchImportScale' },
  { name: 'import-latency', file: 'import-latency.ts', fn: 'benchImportLatency' },
  { name: 'item-view', file: 'item-view.ts', fn: 'benchItemView' },
];

async function main(): Promise<number> {
  const out: Record<string, unknown> = {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    date: new Date().toISOString(),
  };
  let failed = false;
  const only = process.argv.slice(2);
  for (const m of MODULES.filter((x) => only.length === 0 || only.includes(x.name))) {
    const file = path.join(HERE, m.file);
    if (!existsSync(file)) {
      out[m.name] = { skipped: `${path.relative(process.cwd(), file)} not present` };
      continue;
    }
    process.stderr.write(`bench: ${m.name}…\n`);
    try {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const fn = mod[m.fn];
      if (typeof fn !== 'function') throw new Error(`${m.file} does not export ${m.fn}()`);
      out[m.name] = await (fn as () => Promise<unknown>)();
    } catch (e) {
      failed = true;
      out[m.name] = { error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    }
  }
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  return failed ? 1 : 0;
}

process.exitCode = await main();
