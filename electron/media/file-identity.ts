import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { MediaError } from './media-error';

const MIB = 1024 * 1024;

/** What identifies a video file cheaply: the metadata cache key. */
export interface FileIdentity {
  path: string;
  size: number;
  mtimeMs: number;
  /** sha256 over the size, the first MiB and the last MiB — hashing whole videos would take seconds. */
  headTailHash: string;
}

export async function statVideo(path: string): Promise<{ size: number; mtimeMs: number }> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new MediaError('missing', path, 'video file not found');
    throw new MediaError('unreadable', path, `cannot read video file (${code ?? String(err)})`);
  }
  if (!st.isFile()) throw new MediaError('not-a-file', path, 'is not a regular file');
  return { size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
}

export async function fileIdentity(path: string): Promise<FileIdentity> {
  const { size, mtimeMs } = await statVideo(path);
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    throw new MediaError('unreadable', path, `cannot open video file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    const hash = createHash('sha256');
    hash.update(`size:${size};`);
    const headLen = Math.min(MIB, size);
    const head = Buffer.alloc(headLen);
    await fh.read(head, 0, headLen, 0);
    hash.update(head);
    if (size > MIB) {
      const tailLen = Math.min(MIB, size - MIB);
      const tail = Buffer.alloc(tailLen);
      await fh.read(tail, 0, tailLen, size - tailLen);
      hash.update(tail);
    }
    return { path, size, mtimeMs, headTailHash: hash.digest('hex') };
  } finally {
    await fh.close();
  }
}
