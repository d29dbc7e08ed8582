/**
 * Runs python3 as the reference implementation for sampler tests. Returns null (and the
 * caller skips with the printed reason) when python3 — or numpy, for numpy checks — is absent.
 */
import { spawnSync } from 'node:child_process';

export function pythonAvailable(module?: string): string | null {
  const code = module ? `import ${module}` : 'import random';
  const r = spawnSync('python3', ['-c', code], { encoding: 'utf8' });
  if (r.error) return `python3 not found (${r.error.message})`;
  if (r.status !== 0) return module ? `python3 has no ${module}` : `python3 failed: ${r.stderr}`;
  return null;
}

/** Runs `script` with `input` as JSON on stdin and parses its stdout as JSON. */
export function runPython<T>(script: string, input: unknown): T {
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`python3 exited ${String(r.status)}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
