import { spawn } from 'node:child_process';
import { MediaError } from './media-error';

export interface RunOptions {
  signal?: AbortSignal;
  /** Called with each stdout chunk; when given, stdout is not buffered. */
  onStdout?: (chunk: Buffer) => void;
  /** Called with each stderr line (used for ffmpeg -progress parsing). */
  onStderrLine?: (line: string) => void;
  /** Cap on buffered stdout, to refuse pathological outputs instead of eating memory. */
  maxStdoutBytes?: number;
  /**
   * Extra output pipes: the child sees them as fds 3, 4, … (ffmpeg writes to them as `pipe:3`, …).
   * One pipe per ffmpeg output keeps the images of different outputs apart, so a short output
   * can never shift the labels of another one.
   */
  extraPipes?: number;
  onPipe?: (pipe: number, chunk: Buffer) => void;
}

export interface RunResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/**
 * Spawn a tool with an argument array (never a shell, so file names are never interpreted)
 * and collect its output. Abort kills the child with SIGKILL: ffmpeg ignores SIGTERM while
 * it is blocked writing to a full pipe, and a cancelled job must stop using the CPU at once.
 */
export function runProcess(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new MediaError('cancelled', null, 'cancelled'));
      return;
    }
    const extra = opts.extraPipes ?? 0;
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe', ...Array.from({ length: extra }, () => 'pipe' as const)], windowsHide: true });
    for (let i = 0; i < extra; i++) {
      const stream = child.stdio[3 + i];
      if (stream && 'on' in stream) stream.on('data', (chunk: Buffer) => opts.onPipe?.(i, chunk));
    }
    const { stdout, stderr } = child;
    if (!stdout || !stderr) {
      child.kill('SIGKILL');
      reject(new Error(`cannot read the output of '${cmd}'`));
      return;
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let lineBuf = '';
    let settled = false;
    const onAbort = (): void => {
      child.kill('SIGKILL');
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    stdout.on('data', (chunk: Buffer) => {
      if (opts.onStdout) {
        opts.onStdout(chunk);
        return;
      }
      outBytes += chunk.length;
      if (opts.maxStdoutBytes !== undefined && outBytes > opts.maxStdoutBytes) {
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
    });
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      // Keep only the tail of stderr: a long decode can print megabytes of warnings.
      err = (err + chunk).slice(-20_000);
      if (opts.onStderrLine) {
        lineBuf += chunk;
        const lines = lineBuf.split(/\r?\n|\r/);
        lineBuf = lines.pop() ?? '';
        for (const line of lines) opts.onStderrLine(line);
      }
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      if (e.code === 'ENOENT') reject(new MediaError('tool-missing', null, `cannot run '${cmd}': not found (install ffmpeg or set FLIPBOOK_FFMPEG / FLIPBOOK_FFPROBE)`));
      else reject(e);
    });
    child.on('close', (code) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      if (opts.signal?.aborted) {
        reject(new MediaError('cancelled', null, 'cancelled'));
        return;
      }
      resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: err });
    });
  });
}

/** The last meaningful stderr line of a failed tool, for error messages. */
export function lastErrorLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? 'no error output';
}
