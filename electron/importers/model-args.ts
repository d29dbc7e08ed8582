/**
 * lmms-eval `model_args` ("pretrained=…,max_frames_num=16,…") as a key → value map.
 * Values may not contain commas in lmms-eval's own syntax, so a plain split is exact.
 */
export function parseModelArgs(s: string | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!s) return out;
  for (const part of s.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

/** The frame-count argument names used by lmms-eval model wrappers, in precedence order. */
export const FRAME_ARGS = ['max_frames_num', 'max_num_frames', 'num_frame', 'nframes', 'num_frames', 'frames_upbound'];

export function framesFromArgs(args: Map<string, string>): { frames: number; arg: string } | null {
  for (const k of FRAME_ARGS) {
    const v = args.get(k);
    if (v !== undefined && /^\d+$/.test(v)) return { frames: Number(v), arg: k };
  }
  return null;
}

export function pixelsFromArgs(args: Map<string, string>): number | null {
  const v = args.get('max_pixels');
  if (v === undefined) return null;
  // max_pixels may be written as an expression like 602112 or 768*28*28.
  if (/^\d+(\s*\*\s*\d+)*$/.test(v)) return v.split('*').reduce((a, b) => a * Number(b), 1); // Number() ignores the spaces
  return null;
}
