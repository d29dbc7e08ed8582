import { probeVideo } from '../../media/probe';
import type { VideoMeta } from '../../media/video-meta';
import { parseCli, requireOption, toJson } from '../args';
import type { CliCommand } from '../command';

const HELP = `Usage: flipbook probe --video V [--json]

Reads a video's metadata the way the frame engine uses it: duration, start time, time base,
average and real frame rate, frame count (counted from the packets; the container's own count
shown when it has one), codec, size, rotation, variable frame rate, keyframes.

Options:
  --video V   the video file
  --json      print JSON (the per-frame timestamp list is summarised)

Exit codes: 0 ok, 1 the file is missing, truncated or not a video (the message says which), 2 bad usage.`;

/** The metadata without the per-frame timestamp list (100k numbers for an hour of video). */
export function summarizeMeta(m: VideoMeta): Record<string, unknown> {
  const { pts, keyframes, ...rest } = m;
  return {
    ...rest,
    timestamps: pts.kind === 'regular' ? { kind: 'regular', firstTick: pts.first, stepTicks: pts.step } : { kind: 'list', count: pts.values.length },
    keyframeCount: keyframes.length,
    keyframes: keyframes.length <= 50 ? keyframes : [...keyframes.slice(0, 50), `… ${keyframes.length - 50} more`],
  };
}

export const probeCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, { video: { type: 'string' }, json: { type: 'boolean' } });
    const m = await probeVideo(requireOption('video', values.video));
    if (values.json) {
      console.log(toJson(summarizeMeta(m)));
      return 0;
    }
    const lines = [
      `${m.path}`,
      `  container      ${m.container}`,
      `  codec          ${m.codec}${m.playable ? '' : ' (not playable in Chromium: the app uses an H.264 proxy)'}`,
      `  size           ${m.width}×${m.height}${m.rotation ? `, rotated ${m.rotation}°` : ''}`,
      `  duration       ${m.durationS.toFixed(3)} s, first frame at ${m.startTimeS.toFixed(6)} s`,
      `  time base      ${m.timeBase[0]}/${m.timeBase[1]}`,
      `  frame rate     avg ${m.avgFrameRate.toFixed(3)}, real ${m.realFrameRate.toFixed(3)}${m.variableFrameRate ? ' — VARIABLE (indices map through real timestamps)' : ''}`,
      `  frames         ${m.frameCount}${m.containerFrameCount === null ? ' (counted; the container does not say)' : m.containerFrameCount === m.frameCount ? '' : ` (container says ${m.containerFrameCount})`}`,
      `  keyframes      ${m.keyframes.length} (every ${m.keyframes.length > 1 ? Math.round(m.frameCount / m.keyframes.length) : m.frameCount} frames on average)`,
    ];
    console.log(lines.join('\n'));
    return 0;
  },
};
