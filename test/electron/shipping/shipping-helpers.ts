/** Shared bits of the shipping tests: repo paths, the Node build of better-sqlite3, image headers. */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const requireFromRepo = createRequire(path.join(repoRoot, 'package.json'));
export const nodeAddon = path.join(repoRoot, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');

export function sha256(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Opens an in-memory database with better-sqlite3 under plain Node, in a fresh process. */
export function betterSqliteLoadsInNode(): { ok: boolean; output: string } {
  const code = "const D=require('better-sqlite3');const db=new D(':memory:');const r=db.prepare('select 41+1 as x').get();db.close();if(r.x!==42)process.exit(3)";
  const r = spawnSync(process.execPath, ['-e', code], { cwd: repoRoot, encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

/** The Electron binary's path, or null (the electron package throws when its download was skipped). */
export function electronBinary(): string | null {
  try {
    const p: unknown = requireFromRepo('electron');
    return typeof p === 'string' && fs.existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

export interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Reads a PNG's IHDR; throws when the bytes are not a PNG. */
export function readPngHeader(bytes: Buffer): PngInfo {
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG (signature)');
  if (bytes.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG (first chunk is not IHDR)');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), bitDepth: bytes.readUInt8(24), colorType: bytes.readUInt8(25) };
}

export function isPng(bytes: Buffer): boolean {
  return bytes.subarray(0, 8).equals(PNG_SIGNATURE);
}
