import { SAMPLING_POLICIES, type SamplingPolicy } from '../../../shared/domain/types';
import { SamplerError, sampleFrames } from '../../../shared/samplers/index';
import { parseCli } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook sample-frames --policy P --total T --n N [--seed S] [--video-id V] [--indices i,j,…]

Prints the frame indices a sampling policy (docs/metrics.md §8) picks, as a JSON array on the
last line of stdout.

Options:
  --policy P     one of: ${SAMPLING_POLICIES.join(', ')}
  --total T      frames in the sampling domain (integer ≥ 1)
  --n N          requested frames (integer ≥ 0)
  --seed S       seed of scalegrid-random and random (integer, default 0)
  --video-id V   benchmark video id (required by scalegrid-random)
  --indices L    recorded frame indices for the explicit policy, comma-separated

Exit codes: 0 ok, 2 bad usage.`;

function parseInteger(name: string, value: string | undefined, required: boolean): number | undefined {
  if (value === undefined) {
    if (required) throw new UsageError(`--${name} is required`);
    return undefined;
  }
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`--${name} must be an integer, got '${value}'`);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} is too large: '${value}'`);
  return n;
}

export const sampleFramesCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, {
      policy: { type: 'string' },
      total: { type: 'string' },
      n: { type: 'string' },
      seed: { type: 'string' },
      'video-id': { type: 'string' },
      indices: { type: 'string' },
    });
    const policy = values.policy;
    if (policy === undefined) throw new UsageError('--policy is required');
    if (!(SAMPLING_POLICIES as readonly string[]).includes(policy)) {
      throw new UsageError(`unknown policy '${policy}' (expected one of ${SAMPLING_POLICIES.join(', ')})`);
    }
    const total = parseInteger('total', values.total, true)!;
    const n = parseInteger('n', values.n, policy !== 'explicit') ?? 0;
    const seed = parseInteger('seed', values.seed, false);
    const explicit = values.indices?.split(',').map((x, i) => {
      if (!/^\d+$/.test(x.trim())) throw new UsageError(`--indices entry #${i} is not a non-negative integer: '${x}'`);
      return Number(x);
    });
    try {
      const out = sampleFrames(policy as SamplingPolicy, {
        total,
        n,
        ...(seed !== undefined ? { seed } : {}),
        ...(values['video-id'] !== undefined ? { videoId: values['video-id'] } : {}),
        ...(explicit ? { explicit } : {}),
      });
      console.log(JSON.stringify(out));
      return 0;
    } catch (err) {
      // Every sampler error is a problem with the arguments given.
      if (err instanceof SamplerError) throw new UsageError(err.message);
      throw err;
    }
  },
};
